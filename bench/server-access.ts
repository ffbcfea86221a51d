/**
 * How the bench reaches a server: its URL and the admin client certificate from the
 * kubeconfig Cairn writes, and a small JSON request helper over HTTPS.
 */
import https from 'node:https';
import { loadKubeconfig } from '../src/machinery/kubeclient/kubeconfig.js';

/** A server's address and the TLS material of its admin user. */
export interface ServerAccess {
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** Reads the kubeconfig a server wrote and returns how to reach it as its admin user. */
export async function accessFromKubeconfig(path: string): Promise<ServerAccess> {
  const access = await loadKubeconfig(path);
  if (!access.caPem || !access.clientCertPem || !access.clientKeyPem) throw new Error(`${path}: no CA or client certificate`);
  return serverAccess(access.server, access.caPem, access.clientCertPem, access.clientKeyPem);
}

/** Builds a {@link ServerAccess} from PEM text. */
export function serverAccess(url: string, caPem: string, certPem: string, keyPem: string): ServerAccess {
  return Object.freeze({ url, caPem, certPem, keyPem });
}

/** The TLS options of an HTTPS request to `access` as its admin user. */
export function tlsOptions(access: ServerAccess): { ca: string; cert: string; key: string } {
  return { ca: access.caPem, cert: access.certPem, key: access.keyPem };
}

/** A response with its body read in full. */
export interface TextResponse {
  readonly status: number;
  readonly text: string;
}

/** Options of {@link request}. */
export interface RequestOptions {
  readonly body?: string;
  readonly contentType?: string;
  /** A keep-alive agent to reuse connections; a new connection otherwise. */
  readonly agent?: https.Agent;
  readonly timeoutMs?: number;
}

/** Makes one request as the admin user and reads the whole body. */
export function request(access: ServerAccess, method: string, path: string, options: RequestOptions = {}): Promise<TextResponse> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${access.url}${path}`,
      { method, headers, ...tlsOptions(access), agent: options.agent ?? false, timeout: options.timeoutMs ?? 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 60_000} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Like {@link request}, but throws unless the status is `expected` (201 for a create, 200 otherwise). */
export async function expectStatus(access: ServerAccess, method: string, path: string, options: RequestOptions = {}, expected?: number): Promise<string> {
  const want = expected ?? (method === 'POST' ? 201 : 200);
  const response = await request(access, method, path, options);
  if (response.status !== want) throw new Error(`${method} ${path}: HTTP ${response.status} (expected ${want}): ${response.text.slice(0, 300)}`);
  return response.text;
}

/** A keep-alive agent of at most `maxSockets` connections, for a client that sends many requests. */
export function keepAliveAgent(maxSockets: number): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets });
}
