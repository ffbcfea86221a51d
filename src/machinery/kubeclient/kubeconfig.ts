/**
 * The one kubeconfig reader, for the typed client, the controllers and the server's
 * delegation to the main API server (`--authentication-kubeconfig`,
 * `--authorization-kubeconfig`): a context's cluster (server, CA, TLS server name,
 * whether to verify) and user (client certificate and key, bearer token or token file),
 * and its default namespace. Certificates may be embedded (`*-data`, base64, as Cairn
 * writes `.data/kubeconfig`) or files (paths relative to the kubeconfig, as kubectl
 * resolves them). The in-cluster config, client-go's `rest.InClusterConfig`, gives the
 * same access from a pod's ServiceAccount.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** How to reach one API server as one user. */
export interface ClusterAccess {
  /** The API server URL, e.g. `https://127.0.0.1:8443`, without a trailing slash. */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate; the system CAs when unset. */
  readonly caPem?: string;
  /** The name the server's certificate must carry when it is not the URL's host (`tls-server-name`). */
  readonly tlsServerName?: string;
  /** Accept any server certificate (`insecure-skip-tls-verify`). */
  readonly insecureSkipTlsVerify?: boolean;
  /** PEM of the client certificate. */
  readonly clientCertPem?: string;
  /** PEM of the client certificate's private key. */
  readonly clientKeyPem?: string;
  /** A bearer token (`token`), which wins over `tokenFile`. */
  readonly token?: string;
  /** The absolute path of a file holding the bearer token (`tokenFile`), read again as it rotates. */
  readonly tokenFile?: string;
  /** The context's namespace; `default` when it names none. */
  readonly namespace: string;
}

/** Where a pod's ServiceAccount token (`token`) and the cluster's CA (`ca.crt`) are mounted. */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A `cluster`, `user` or `context` map: the fields this module reads. */
type Entry = Readonly<Record<string, unknown>>;
/** An item of `clusters`, `users` or `contexts`. */
type Named = { readonly name: string } & Readonly<Partial<Record<'cluster' | 'user' | 'context', Entry>>>;

/**
 * Loads `path` and resolves `context` (the current context by default).
 *
 * @example
 * const access = await loadKubeconfig('.data/kubeconfig');
 * const client = createCairnClient(access);
 */
export async function loadKubeconfig(path: string, context?: string): Promise<ClusterAccess> {
  const config = (parse(await readFile(path, 'utf8')) ?? {}) as Record<string, unknown>;
  const contextName = context ?? text(config['current-context']);
  if (!contextName) throw new Error(`${path}: no context given and no current-context`);
  const ctx = find(config, 'contexts', 'context', contextName, path);
  const cluster = find(config, 'clusters', 'cluster', required(ctx, 'cluster', path), path);
  const userName = text(ctx.user);
  const user = userName === undefined ? {} : find(config, 'users', 'user', userName, path);
  const base = dirname(resolve(path));
  const tokenFile = text(user.tokenFile);
  return Object.freeze({
    server: required(cluster, 'server', path).replace(/\/+$/, ''),
    caPem: await pem(cluster, 'certificate-authority', base),
    tlsServerName: text(cluster['tls-server-name']),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTlsVerify: true } : {}),
    clientCertPem: await pem(user, 'client-certificate', base),
    clientKeyPem: await pem(user, 'client-key', base),
    token: text(user.token),
    tokenFile: tokenFile === undefined ? undefined : resolve(base, tokenFile),
    namespace: text(ctx.namespace) ?? 'default',
  });
}

/**
 * The in-cluster access, as client-go's `rest.InClusterConfig`: `https://host:port` of the
 * main API server's Service, the ServiceAccount token file of `dir` and its `ca.crt` (the
 * system's CAs when that is missing, as client-go goes on without it).
 *
 * @example
 * const access = inClusterAccess({ host: env.KUBERNETES_SERVICE_HOST, port: env.KUBERNETES_SERVICE_PORT });
 */
export function inClusterAccess(service: { readonly host: string; readonly port: string }, dir: string = serviceAccountDir): ClusterAccess {
  let caPem: string | undefined;
  try {
    caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
  } catch {
    caPem = undefined;
  }
  // net.JoinHostPort: an IPv6 address in brackets.
  const host = service.host.includes(':') ? `[${service.host}]` : service.host;
  return Object.freeze({ server: `https://${host}:${service.port}`, caPem, tokenFile: join(dir, 'token'), namespace: 'default' });
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The `field` of the entry called `name` in the list `list` (`contexts`, `clusters`, `users`). */
function find(config: Record<string, unknown>, list: string, field: 'cluster' | 'user' | 'context', name: string, path: string): Entry {
  const entries = (Array.isArray(config[list]) ? config[list] : []) as readonly Named[];
  const entry = entries.find((e) => e?.name === name)?.[field];
  if (typeof entry !== 'object' || entry === null) throw new Error(`${path}: no ${field} named "${name}"`);
  return entry;
}

function required(entry: Entry, key: string, path: string): string {
  const value = text(entry[key]);
  if (!value) throw new Error(`${path}: "${key}" is missing`);
  return value;
}

/** A PEM from `<key>-data` (base64) or from the file `<key>` names. */
async function pem(entry: Entry, key: string, base: string): Promise<string | undefined> {
  const data = text(entry[`${key}-data`]);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = text(entry[key]);
  return file ? readFile(resolve(base, file), 'utf8') : undefined;
}
