/**
 * Reads what the client needs from a kubeconfig: the current context's server, CA,
 * client certificate and key, and default namespace. Certificates may be embedded
 * (`*-data`, base64, as Cairn writes `.data/kubeconfig`) or files (paths relative to
 * the kubeconfig, as kubectl resolves them).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';

/** How to reach one API server as one user. */
export interface ClusterAccess {
  /** The API server URL, e.g. `https://127.0.0.1:8443`. */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate; the system CAs when unset. */
  readonly caPem?: string;
  /** PEM of the client certificate. */
  readonly clientCertPem?: string;
  /** PEM of the client certificate's private key. */
  readonly clientKeyPem?: string;
  /** The context's namespace; `default` when it names none. */
  readonly namespace: string;
}

/** A `cluster`, `user` or `context` map: the string fields this module reads. */
type Entry = Readonly<Record<string, string | undefined>>;
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
  const contextName = context ?? (config['current-context'] as string | undefined);
  if (!contextName) throw new Error(`${path}: no context given and no current-context`);
  const ctx = find(config, 'contexts', 'context', contextName, path);
  const cluster = find(config, 'clusters', 'cluster', required(ctx, 'cluster', path), path);
  const user = ctx.user === undefined ? {} : find(config, 'users', 'user', ctx.user, path);
  const base = dirname(path);
  return Object.freeze({
    server: required(cluster, 'server', path),
    caPem: await pem(cluster, 'certificate-authority', base),
    clientCertPem: await pem(user, 'client-certificate', base),
    clientKeyPem: await pem(user, 'client-key', base),
    namespace: ctx.namespace || 'default',
  });
}

/** The `field` of the entry called `name` in the list `list` (`contexts`, `clusters`, `users`). */
function find(config: Record<string, unknown>, list: string, field: 'cluster' | 'user' | 'context', name: string, path: string): Entry {
  const entries = (config[list] ?? []) as readonly Named[];
  const entry = entries.find((e) => e.name === name)?.[field];
  if (!entry) throw new Error(`${path}: no ${field} named "${name}"`);
  return entry;
}

function required(entry: Entry, key: string, path: string): string {
  const value = entry[key];
  if (!value) throw new Error(`${path}: "${key}" is missing`);
  return value;
}

/** A PEM from `<key>-data` (base64) or from the file `<key>` names. */
async function pem(entry: Entry, key: string, base: string): Promise<string | undefined> {
  const data = entry[`${key}-data`];
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[key];
  return file ? readFile(resolve(base, file), 'utf8') : undefined;
}
