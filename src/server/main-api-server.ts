/**
 * The server's clients of the main API server, in one place: from `--authentication-kubeconfig`
 * and `--authorization-kubeconfig`, else the in-cluster config in a pod, else none
 * (standalone), as k8s.io/apiserver's delegating options find them. Authentication,
 * authorization, admission and the garbage collector's mode read what is here.
 */
import type { Logger } from 'pino';
import { serviceAccountDir } from '../machinery/kubeclient/kubeconfig.js';
import { RestClient } from '../machinery/kubeclient/rest-client.js';
import type { NamespaceLookup } from '../registry/namespace-lifecycle.js';
import type { AuthenticationDelegation } from './options/authentication.js';
import type { AuthorizationDelegation } from './options/authorization.js';

/** Authentication and authorization delegated to the main API server, as their flags say. */
export type DelegationConfig = AuthenticationDelegation & AuthorizationDelegation;

/** The clients of the main API server, when there is one. */
export interface MainApiServer {
  /** TokenReview, the cluster's trust, namespaces and webhook configurations. */
  readonly authenticationClient?: RestClient;
  /** SubjectAccessReview. */
  readonly authorizationClient?: RestClient;
  close(): void;
}

/** The clients `config` names; `inClusterDir` is where a pod's ServiceAccount token and CA are read from. */
export async function mainApiServer(config: DelegationConfig, logger: Logger, inClusterDir: string = serviceAccountDir): Promise<MainApiServer> {
  const client = async (kubeconfig: string | undefined, what: string): Promise<RestClient | undefined> => {
    if (kubeconfig !== undefined) return RestClient.fromKubeconfig(kubeconfig);
    if (config.inCluster === undefined) return undefined;
    const inCluster = RestClient.inCluster(config.inCluster, inClusterDir);
    logger.info({ server: inCluster.server }, `${what} delegated through the in-cluster config`);
    return inCluster;
  };
  const authenticationClient = await client(config.authenticationKubeconfig, 'authentication');
  const authorizationClient = await client(config.authorizationKubeconfig, 'authorization');
  return {
    authenticationClient,
    authorizationClient,
    close() {
      authenticationClient?.close();
      authorizationClient?.close();
    },
  };
}

/** NamespaceLifecycle's view of the main API server: a namespace's phase, read with one GET. */
export function namespaceLookup(client: RestClient): NamespaceLookup {
  return async (name) => {
    const answer = await client.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`, undefined, { timeoutMs: 10_000 });
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw new Error(`GET namespace ${name}: HTTP ${answer.status}`);
    return (answer.body as { status?: { phase?: string } }).status?.phase === 'Terminating' ? 'Terminating' : 'Active';
  };
}

/**
 * A namespace's labels, for webhooks' namespaceSelector: the main API server's in a
 * cluster; standalone, where a namespace is only a name, the label kube gives every namespace.
 */
export function namespaceLabels(client: RestClient | undefined): (name: string) => Promise<Record<string, string>> {
  if (!client) return (name) => Promise.resolve({ 'kubernetes.io/metadata.name': name });
  return async (name) => {
    const answer = await client.request('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`, undefined, { timeoutMs: 10_000 });
    if (answer.status === 404) return {};
    if (answer.status !== 200) throw new Error(`GET namespace ${name}: HTTP ${answer.status}`);
    return (answer.body as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
  };
}
