/**
 * What the tests of Cairn delegating to a real kube-apiserver share: bearer-token requests,
 * and asking again while caches catch up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestOptions, TestResponse, TestServer } from './test-server.js';

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
