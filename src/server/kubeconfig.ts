/**
 * The kubeconfig Cairn writes for its admin client (`.data/kubeconfig`): one cluster, one
 * user with an embedded client certificate, and one context, readable by its owner only.
 */
import { chmod, rename, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

/** What a kubeconfig for one cluster, one user and one context is made of. */
export interface KubeconfigOptions {
  /** The API server URL, e.g. `https://127.0.0.1:8443`. */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly caPem: string;
  /** PEM of the client certificate. */
  readonly clientCertPem: string;
  /** PEM of the client certificate's private key. */
  readonly clientKeyPem: string;
  /** Cluster entry name; `cairn` by default. */
  readonly clusterName?: string;
  /** User entry name; `cairn-admin` by default. */
  readonly userName?: string;
  /** Default namespace of the context; `default` by default. */
  readonly namespace?: string;
}

/**
 * Renders a kubeconfig YAML with the certificates embedded as base64 `*-data` fields and
 * a single context, named after the cluster, set as `current-context`.
 *
 * @example
 * const yaml = renderKubeconfig({ server: 'https://127.0.0.1:8443', caPem: pki.servingCaPem,
 *   clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem });
 */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const clusterName = options.clusterName ?? 'cairn';
  const userName = options.userName ?? 'cairn-admin';
  const namespace = options.namespace ?? 'default';
  const contextName = clusterName;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: clusterName,
        cluster: { server: options.server, 'certificate-authority-data': base64(options.caPem) },
      },
    ],
    users: [
      {
        name: userName,
        user: {
          'client-certificate-data': base64(options.clientCertPem),
          'client-key-data': base64(options.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: userName, namespace } }],
    'current-context': contextName,
  });
}

/**
 * Writes {@link renderKubeconfig}'s output to `path` with mode 0600 (it holds a private key).
 */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  // Written aside and renamed into place: `--workers` processes each write it, and a reader never sees half of one.
  const written = `${path}.${process.pid}.tmp`;
  await writeFile(written, renderKubeconfig(options), { mode: 0o600 });
  // The mode above only applies when the file is created.
  await chmod(written, 0o600);
  await rename(written, path);
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
