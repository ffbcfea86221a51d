/**
 * Client-certificate and front-proxy trust read from the cluster, as k8s.io/apiserver's
 * delegating authentication does when its flags leave them out
 * (`pkg/server/options/authentication.go`, `lookupMissingConfigInCluster`, and
 * `dynamiccertificates/configmap_cafile_content.go`): kube-apiserver publishes its
 * `client-ca-file` and `requestheader-*` settings in the ConfigMap
 * `kube-system/extension-apiserver-authentication`; this source reads it through
 * `--authentication-kubeconfig`, builds an x509 and a request-header authenticator from
 * it, and rebuilds them when the ConfigMap changes. An Informer reads the ConfigMap and
 * watches it, each watch stream at most `resyncMs` long and reopened from the last
 * resourceVersion seen (bookmarks included); it reads the ConfigMap again when the server
 * no longer has that resourceVersion (410) or a watch fails.
 */
import { Informer } from '../machinery/kubeclient/informer.js';
import { restListWatch, type RestClient } from '../machinery/kubeclient/rest-client.js';
import { parseCertificates } from './certificate-verifier.js';
import { RequestHeaderAuthenticator, type RequestHeaderAuthenticatorOptions } from './request-header-authenticator.js';
import type { AuthenticationRequest, Authenticator, RequestHeaders, UserInfo } from './user-info.js';
import { X509Authenticator } from './x509-authenticator.js';

/** Where kube-apiserver publishes its authentication settings. */
export const authenticationConfigMapPath = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';

/** What the ConfigMap says, PEMs with LF line ends (kube republishes what node-forge writes with CRLF). */
export interface ClusterAuthenticationInfo {
  /** `client-ca-file`: the CAs of the cluster's x509 users. */
  readonly clientCaPem?: string;
  /** The front proxy's CA and header names; undefined when the cluster has none. */
  readonly requestHeader?: RequestHeaderAuthenticatorOptions;
}

/** PEM text compared and used with LF line ends and no surrounding blank space. */
function normalisedPem(pem: string | undefined): string | undefined {
  const text = pem?.replaceAll('\r\n', '\n').trim();
  return text ? `${text}\n` : undefined;
}

/** kube's `deserializeStrings`: a JSON array of strings; empty or absent is an empty list. */
function strings(data: Readonly<Record<string, string>>, key: string): readonly string[] {
  const text = data[key];
  if (!text) return [];
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`${key}: not a JSON array of strings`);
  return value;
}

/** Reads the ConfigMap's data; throws on a field that cannot be read. */
export function parseClusterAuthentication(data: Readonly<Record<string, string>>): ClusterAuthenticationInfo {
  const clientCaPem = normalisedPem(data['client-ca-file']);
  const requestHeaderCaPem = normalisedPem(data['requestheader-client-ca-file']);
  if (clientCaPem !== undefined) parseCertificates(clientCaPem);
  if (requestHeaderCaPem !== undefined) parseCertificates(requestHeaderCaPem);
  return {
    ...(clientCaPem !== undefined ? { clientCaPem } : {}),
    ...(requestHeaderCaPem !== undefined
      ? {
          requestHeader: {
            clientCaPems: [requestHeaderCaPem],
            allowedNames: strings(data, 'requestheader-allowed-names'),
            usernameHeaders: strings(data, 'requestheader-username-headers'),
            uidHeaders: strings(data, 'requestheader-uid-headers'),
            groupHeaders: strings(data, 'requestheader-group-headers'),
            extraHeaderPrefixes: strings(data, 'requestheader-extra-headers-prefix'),
          },
        }
      : {}),
  };
}

/** Options of {@link ClusterAuthentication}. */
export interface ClusterAuthenticationOptions {
  readonly client: Pick<RestClient, 'request' | 'watch'>;
  /** Whether the front-proxy settings come from the ConfigMap (no `--requestheader-client-ca-file` given). */
  readonly requestHeader: boolean;
  /** Called after the trust changed, e.g. to give the listener the new CAs. */
  readonly onChange?: (info: ClusterAuthenticationInfo) => void;
  /** Told why a read or watch failed; the source keeps the last good settings and retries. */
  readonly onError?: (error: Error) => void;
  /** The longest each watch stream runs (its `timeoutSeconds`) before it is reopened; 60 s by default. */
  readonly resyncMs?: number;
  /** The wait after a failed read or watch; 1 s by default. */
  readonly retryMs?: number;
}

/** The authenticators the current settings make. */
interface Current {
  readonly key: string;
  readonly info: ClusterAuthenticationInfo;
  readonly requestHeader?: RequestHeaderAuthenticator;
  readonly x509?: X509Authenticator;
}

const none: Current = { key: '', info: {} };

/** What this source reads of the ConfigMap. */
interface ConfigMap {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
}

/**
 * The cluster's trust, kept current. {@link authenticators} stay the same objects for the
 * server's lifetime and ask whatever the ConfigMap says at the time of each request.
 *
 * @example
 * const trust = new ClusterAuthentication({ client, requestHeader: true, onChange: () => listener.setClientCas(trust.clientCaPems()) });
 * await trust.start();
 */
export class ClusterAuthentication {
  readonly #options: ClusterAuthenticationOptions;
  readonly #stopped = new AbortController();
  #current: Current = none;
  #running: Promise<void> | undefined;

  /** The front-proxy authenticator, then the x509 one, in kube's order. */
  readonly authenticators: readonly Authenticator[];

  constructor(options: ClusterAuthenticationOptions) {
    this.#options = options;
    this.authenticators = Object.freeze([
      {
        authenticate: (request: AuthenticationRequest): UserInfo | undefined => this.#current.requestHeader?.authenticate(request),
        clearCredentials: (request: RequestHeaders): void => this.#current.requestHeader?.clearCredentials(request),
      },
      { authenticate: (request: AuthenticationRequest): UserInfo | undefined => this.#current.x509?.authenticate(request) },
    ]);
  }

  /** The settings in force. */
  get info(): ClusterAuthenticationInfo {
    return this.#current.info;
  }

  /** Every CA the listener must ask client certificates of, for these authenticators. */
  clientCaPems(): string[] {
    const { clientCaPem, requestHeader } = this.#current.info;
    return [...(clientCaPem !== undefined ? [clientCaPem] : []), ...(requestHeader?.clientCaPems ?? [])];
  }

  /**
   * Reads the ConfigMap, then keeps watching it until {@link stop}. When the first read
   * fails, it is told to `onError` and retried in the background, as kube-apiserver goes
   * on without the configuration; returns whether it was read.
   */
  async start(): Promise<boolean> {
    let firstFailure: (() => void) | undefined;
    const failed = new Promise<void>((resolve) => (firstFailure = resolve));
    const resyncSeconds = Math.max(1, Math.round((this.#options.resyncMs ?? 60_000) / 1000));
    const collection = authenticationConfigMapPath.slice(0, authenticationConfigMapPath.lastIndexOf('/'));
    const configMaps = restListWatch<ConfigMap>(this.#options.client, {
      listPath: authenticationConfigMapPath,
      itemsOf: (body) => {
        const configMap = (body ?? {}) as ConfigMap;
        return { items: [configMap], resourceVersion: configMap.metadata?.resourceVersion ?? '' };
      },
      watchPath: (resourceVersion) => {
        const query = new URLSearchParams({
          watch: '1',
          allowWatchBookmarks: 'true',
          fieldSelector: 'metadata.name=extension-apiserver-authentication',
          timeoutSeconds: String(resyncSeconds),
        });
        if (resourceVersion !== '') query.set('resourceVersion', resourceVersion);
        return `${collection}?${query.toString()}`;
      },
      what: 'the authentication ConfigMap',
    });
    const informer = new Informer(configMaps, {
      retryDelayMs: this.#options.retryMs ?? 1000,
      onError: (error) => {
        this.#options.onError?.(error as Error);
        firstFailure?.();
      },
    });
    // A deletion keeps the last settings, as kube's dynamic CA content does.
    informer.onChange((_previous, current) => {
      if (current !== undefined) this.#apply(current);
    });
    this.#running = informer.run(this.#stopped.signal);
    const read = await Promise.race([informer.synced.then(() => true), failed.then(() => false)]);
    firstFailure = undefined;
    return read;
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#running;
  }

  /** Rebuilds the authenticators when the ConfigMap's settings differ from those in force. */
  #apply(configMap: ConfigMap): void {
    const info = parseClusterAuthentication(configMap.data ?? {});
    const useful: ClusterAuthenticationInfo = {
      ...(info.clientCaPem !== undefined ? { clientCaPem: info.clientCaPem } : {}),
      ...(this.#options.requestHeader && info.requestHeader !== undefined ? { requestHeader: info.requestHeader } : {}),
    };
    const key = JSON.stringify(useful);
    if (key === this.#current.key) return;
    this.#current = {
      key,
      info: useful,
      ...(useful.requestHeader !== undefined ? { requestHeader: new RequestHeaderAuthenticator(useful.requestHeader) } : {}),
      ...(useful.clientCaPem !== undefined ? { x509: new X509Authenticator({ clientCaPems: [useful.clientCaPem] }) } : {}),
    };
    this.#options.onChange?.(useful);
  }
}
