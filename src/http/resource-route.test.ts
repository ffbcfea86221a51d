import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { isResourceRoute, resourceRoute } from './resource-route.js';

describe('isResourceRoute', () => {
  const router = new Router();
  router.all(resourceRoute, () => {});
  const routed = (path: string): boolean => router.match(path, 'GET').route;

  it('takes only paths the router sends to the resource route', () => {
    const paths = [
      '/apis/cairn.dev/v1/namespaces/ns/pipelines/p',
      '/apis/cairn.dev/v1/pipelines',
      '/apis/g/v/x',
      '/apis/g/v/x/',
      '/apis/g/v//',
      '/apis/g/v/x%2Fy',
      '/apis/g/v/',
      '/apis/g/v',
      '/apis/g',
      '/apis/',
      '/apis',
      '/apis//v/x',
      '/apis/g//x',
      '/api/v1/namespaces',
      '/openapi/v3/apis/g/v',
      '/apisx/g/v/x',
    ];
    for (const path of paths) if (isResourceRoute(path)) expect(routed(path), path).toBe(true);
    // What the router takes and this leaves to it: only other letter cases of `apis`.
    expect(paths.filter((path) => routed(path) && !isResourceRoute(path))).toEqual([]);
    expect(routed('/APIS/g/v/x') && !isResourceRoute('/APIS/g/v/x')).toBe(true);
  });
});
