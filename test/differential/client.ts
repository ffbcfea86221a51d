/**
 * The differential test's one client: requests to kube-apiserver as its admin, on
 * keep-alive connections, answers read in full (a watch is bounded by its
 * `timeoutSeconds`, so its answer ends too).
 */
import https from 'node:https';
import type { KubeControlPlane } from '../support/kube-control-plane.js';

/** What one request answered, its body read in full. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  /** Every `Warning` header, in order. */
  readonly warnings: readonly string[];
  readonly body: Buffer;
  /** The body as JSON, undefined when it is not. */
  readonly json: any;
}

/** One request as sent. */
export interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as is. */
  readonly body?: string;
}

/** The field manager of every write without `fieldManager`: kube names it after the User-Agent's product. */
export const userAgent = 'cairn-differential/1.0';

/** Requests to `plane` as its admin, at most `sockets` at once. */
export function controlPlaneClient(plane: KubeControlPlane, sockets = 8): { send: (request: Sent) => Promise<Answer>; close: () => void } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: plane.servingCaPem, cert: plane.admin.certPem, key: plane.admin.keyPem });
  const send = ({ method, path, headers = {}, body }: Sent): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
      const req = https.request(`${plane.url}${path}`, { method, agent, headers: { 'User-Agent': userAgent, ...length, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(raw.toString('utf8'));
          } catch {
            json = undefined;
          }
          // Node joins repeated headers with commas, which warnings hold too: read them one by one.
          const warnings = res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1].toLowerCase() === 'warning');
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'] ?? '',
            warnings,
            body: raw,
            json,
          });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}
