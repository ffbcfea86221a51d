/**
 * An admission webhook server for tests: real HTTPS with a CA of its own (for a
 * configuration's caBundle), answering each AdmissionReview POSTed to a path with what
 * the test's handler for that path returns, and recording the requests it was sent (and
 * their HTTP headers, where a `traceparent` travels).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingPki } from '../../src/server/pki.js';

/** The `request` of an AdmissionReview, as a webhook receives it. */
export type ReviewRequest = Record<string, any>;

/** What a handler answers: the `response` of the AdmissionReview (uid is added), or never, to be timed out. */
export type WebhookHandler = (request: ReviewRequest) => Record<string, unknown> | 'never';

/** A running webhook server. */
export interface WebhookServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The base64 PEM of its CA, for `clientConfig.caBundle`. */
  readonly caBundle: string;
  /** The requests each path received, in order. */
  readonly received: Map<string, ReviewRequest[]>;
  /** The HTTP headers of those requests, by path, in the same order. */
  readonly receivedHeaders: Map<string, IncomingHttpHeaders[]>;
  close(): Promise<void>;
}

/** Starts a webhook server whose `handlers` answer by path. */
export async function startWebhookServer(handlers: Readonly<Record<string, WebhookHandler>>): Promise<WebhookServer> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-webhook-'));
  const pki = await ensureServingPki(dir, { hosts: ['127.0.0.1', 'localhost'] });
  await rm(dir, { recursive: true, force: true });
  const received = new Map<string, ReviewRequest[]>();
  const receivedHeaders = new Map<string, IncomingHttpHeaders[]>();
  const server: Server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://webhook').pathname;
      const handler = handlers[path];
      if (!handler) {
        res.writeHead(404).end();
        return;
      }
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: ReviewRequest };
      received.set(path, [...(received.get(path) ?? []), review.request]);
      receivedHeaders.set(path, [...(receivedHeaders.get(path) ?? []), req.headers]);
      const response = handler(review.request);
      if (response === 'never') return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(pki.caPem).toString('base64'),
    received,
    receivedHeaders,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON Patch as a mutating webhook's `patch`. */
export function jsonPatch(operations: readonly unknown[]): { patch: string; patchType: 'JSONPatch' } {
  return { patch: Buffer.from(JSON.stringify(operations)).toString('base64'), patchType: 'JSONPatch' };
}
