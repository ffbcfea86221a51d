/**
 * What the tests of Cairn delegating to a real kube-apiserver share: kubectl as the
 * cluster admin, bearer-token requests, and asking again while caches catch up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { KubeControlPlane } from './kube-control-plane.js';
import type { RunResult } from './kubectl.js';
import type { RequestOptions, TestResponse, TestServer } from './test-server.js';

/** Runs kubectl as the cluster admin and fails the test unless it exits 0. */
export async function kubectlOk(plane: KubeControlPlane, ...args: string[]): Promise<RunResult> {
  const result = await plane.kubectl(args);
  if (result.code !== 0) expect.fail(`kubectl ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A request with a bearer token and no client certificate. */
export function bearer(token: string): RequestOptions {
  return { clientCert: null, headers: { Authorization: `Bearer ${token}` } };
}

/** Asks Cairn until `done` holds (review caches and the ConfigMap watch take a moment), then returns the last answer. */
export async function eventually(
  cairn: TestServer,
  method: string,
  path: string,
  options: RequestOptions,
  done: (r: TestResponse) => boolean,
  ms = 10_000,
): Promise<TestResponse> {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = await cairn.request(method, path, options);
    if (done(response) || Date.now() > deadline) return response;
    await sleep(200);
  }
}
