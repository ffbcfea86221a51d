import { describe, expect, it } from 'vitest';
import { isLongRunning } from './long-running.js';
import { newRequestInfo } from './request-info.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/ns/pipelines';
const info = (method: string, path: string, query = '') => newRequestInfo(method, path, new URLSearchParams(query));

describe('isLongRunning', () => {
  it('holds watches and log reads, followed or not, as kube’s check holds watch and pods/log', () => {
    expect(isLongRunning(info('GET', pipelines, 'watch=true'))).toBe(true);
    expect(isLongRunning(info('GET', '/apis/cairn.dev/v1/watch/pipelines'))).toBe(true);
    expect(isLongRunning(info('GET', `${pipelines}/p/log`, 'follow=true'))).toBe(true);
    expect(isLongRunning(info('GET', `${pipelines}/p/logs`))).toBe(true);
  });

  it('does not hold anything else: reads, writes, a log append, the paths off resources', () => {
    for (const [method, path] of [
      ['GET', pipelines],
      ['GET', `${pipelines}/p`],
      ['POST', pipelines],
      ['POST', `${pipelines}/p/log`],
      ['GET', '/healthz'],
      ['GET', '/metrics'],
    ])
      expect(isLongRunning(info(method, path)), `${method} ${path}`).toBe(false);
  });
});
