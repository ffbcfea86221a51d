/**
 * Bearer tokens checked by a TokenReview against the main API server, with its answers cached
 * and a timeout refused.
 */
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ensurePki } from '../server/pki.js';
import { RestClient, type RestResponse } from '../machinery/kubeclient/rest-client.js';
import { TokenReviewAuthenticator } from './token-review-authenticator.js';

/** A client whose answers the test decides, counting the reviews it was sent. */
function scripted(answer: (token: string) => RestResponse | Error) {
  const reviews: string[] = [];
  return {
    reviews,
    request: async (_method: string, _path: string, body?: unknown): Promise<RestResponse> => {
      const token = (body as { spec: { token: string } }).spec.token;
      reviews.push(token);
      const result = answer(token);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

const authenticated = (username: string): RestResponse => ({
  status: 201,
  body: {
    status: {
      authenticated: true,
      user: { username, uid: 'u-1', groups: ['system:serviceaccounts'], extra: { 'authentication.kubernetes.io/pod-name': ['p'] } },
    },
  },
});

describe('TokenReviewAuthenticator', () => {
  it('makes the reviewed user, in system:authenticated, and remembers it for the TTL', async () => {
    const client = scripted(() => authenticated('system:serviceaccount:default:robot'));
    const authenticator = new TokenReviewAuthenticator({ client, cacheTtlMs: 60_000 });
    const user = await authenticator.authenticateToken('t1');
    expect(user).toEqual({
      name: 'system:serviceaccount:default:robot',
      uid: 'u-1',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
    });
    expect(await authenticator.authenticateToken('t1')).toEqual(user);
    expect(client.reviews).toEqual(['t1']);
  });

  it('knows no user for a token the server does not vouch for, remembering that too', async () => {
    const client = scripted(() => ({ status: 201, body: { status: { authenticated: false, error: 'token expired' } } }));
    const authenticator = new TokenReviewAuthenticator({ client, cacheTtlMs: 60_000 });
    expect(await authenticator.authenticateToken('bad')).toBeUndefined();
    expect(await authenticator.authenticateToken('bad')).toBeUndefined();
    expect(client.reviews).toEqual(['bad']);
  });

  it('answers 401 when the review fails, and asks again next time', async () => {
    let fail = true;
    const client = scripted(() => (fail ? new Error('connection refused') : authenticated('jane')));
    const authenticator = new TokenReviewAuthenticator({ client, cacheTtlMs: 60_000 });
    await expect(authenticator.authenticateToken('t')).rejects.toMatchObject({ code: 401 });
    fail = false;
    expect((await authenticator.authenticateToken('t'))?.name).toBe('jane');
    expect(client.reviews).toEqual(['t', 't']);
  });

  describe('against a server that never answers (what a real kube-apiserver does not do on purpose)', () => {
    let dir: string;
    let server: Server;
    const seen: string[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'cairn-token-review-'));
      const pki = await ensurePki(join(dir, 'pki'), { hosts: ['127.0.0.1'] });
      server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req) => seen.push(`${req.method} ${req.url} ${req.headers.authorization}`));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      const base64 = Buffer.from(pki.servingCaPem).toString('base64');
      await writeFile(join(dir, 'token'), 'cairn-token\n');
      await writeFile(
        join(dir, 'kubeconfig'),
        stringify({
          clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': base64 } }],
          users: [{ name: 'u', user: { tokenFile: 'token' } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
    });

    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('gives up after its timeout with 401, sending the token of the kubeconfig’s tokenFile', async () => {
      const client = await RestClient.fromKubeconfig(join(dir, 'kubeconfig'));
      try {
        // The server never answers, so only the timeout can end the review; it is long enough
        // for the request to reach the server on a loaded machine (a TLS handshake there can
        // take longer than 200 ms).
        const authenticator = new TokenReviewAuthenticator({ client, cacheTtlMs: 60_000, timeoutMs: 2_000 });
        await expect(authenticator.authenticateToken('slow')).rejects.toMatchObject({ code: 401 });
        expect(seen).toEqual(['POST /apis/authentication.k8s.io/v1/tokenreviews Bearer cairn-token']);
      } finally {
        client.close();
      }
    });
  });
});
