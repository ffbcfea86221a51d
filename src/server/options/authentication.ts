/**
 * Authentication's flags (the front proxy's `--requestheader-*`, `--client-ca-file`,
 * `--token-auth-file`, and delegation to the main API server's TokenReview) and what
 * they apply to a server: its authenticators in kube's delegating order and the client
 * CAs the listener asks for, which the cluster's trust can change while it serves.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { BearerTokenAuthenticator, type TokenAuthenticator } from '../../auth/bearer-token-authenticator.js';
import { parseCertificates } from '../../auth/certificate-verifier.js';
import { ClusterAuthentication } from '../../auth/cluster-authentication.js';
import { RequestHeaderAuthenticator, standardRequestHeaderNames, type RequestHeaderNames } from '../../auth/request-header-authenticator.js';
import { TokenFileAuthenticator } from '../../auth/token-file.js';
import { TokenReviewAuthenticator } from '../../auth/token-review-authenticator.js';
import type { Authenticator } from '../../auth/user-info.js';
import { X509Authenticator } from '../../auth/x509-authenticator.js';
import type { Lifecycle } from '../lifecycle.js';
import type { MainApiServer } from '../main-api-server.js';
import type { Pki } from '../pki.js';
import { fileFlag, FlagError, goDuration, kubeconfigFlag, stringFlag, stringSlice, type ConcernOptions } from './flags.js';

/**
 * Front-proxy authentication, with kube-apiserver's `--requestheader-*` flags: off
 * unless a CA file is given; the header names default to the ones kube's aggregator sends.
 */
export interface RequestHeaderConfig extends RequestHeaderNames {
  /** The CA bundle the front proxy's client certificate must chain to (`--requestheader-client-ca-file`). */
  readonly clientCaFile?: string;
  /** The CNs that certificate may have (`--requestheader-allowed-names`); empty allows any. */
  readonly allowedNames: readonly string[];
}

/** Users Cairn authenticates itself, beside the admin kubeconfig's certificate. */
export interface AuthenticationConfig {
  /** `--token-auth-file`: static bearer tokens, kube's CSV. */
  readonly tokenAuthFile?: string;
  /** `--client-ca-file`: a CA whose client certificates name users (CN) and groups (O). */
  readonly clientCaFile?: string;
}

/** The address of the main API server's Service inside the cluster. */
export interface InClusterService {
  readonly host: string;
  readonly port: string;
}

/** Authentication delegated to the main API server, with the flags of k8s.io/apiserver's `DelegatingAuthenticationOptions`. */
export interface AuthenticationDelegation {
  /** `--authentication-kubeconfig`: TokenReview, and the cluster's client and front-proxy CAs; off when unset. */
  readonly authenticationKubeconfig?: string;
  /** `--authentication-token-webhook-cache-ttl` in ms (10 s). */
  readonly tokenCacheTtlMs: number;
  /**
   * The main API server as a pod sees it, from `KUBERNETES_SERVICE_HOST` and
   * `KUBERNETES_SERVICE_PORT` (both set, as client-go's `rest.InClusterConfig` requires);
   * undefined outside a pod. When set, a kubeconfig flag left empty is replaced by the
   * in-cluster config: this address, the pod's ServiceAccount token and CA.
   */
  readonly inCluster?: InClusterService;
}

/** What the authentication flags say. */
export interface AuthenticationOptions {
  /** Who may tell Cairn the user in `X-Remote-*` headers (kube-apiserver's aggregator). */
  readonly requestHeader: RequestHeaderConfig;
  /** Users of their own, as kube-apiserver's flags name them (standalone or not). */
  readonly authentication: AuthenticationConfig;
  /** Delegated authentication (in a cluster). */
  readonly delegation: AuthenticationDelegation;
}

/** Authentication as the options apply it. */
export interface Authentication {
  /** Asked in turn; a request none recognises is `system:anonymous`. */
  readonly authenticators: readonly Authenticator[];
  /** Every CA whose client certificates some authenticator accepts, now. */
  clientCaPems(): readonly string[];
  /** Calls `listener` whenever {@link clientCaPems} changes (the cluster's trust changed). */
  onClientCasChange(listener: () => void): void;
}

/** What applying the authentication options needs of the server. */
interface AuthenticationContext {
  readonly options: AuthenticationOptions;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly pki: Pki;
  readonly mainApiServer: MainApiServer;
}

/** The front-proxy CA bundle, when one is configured. */
async function loadRequestHeaderCa(config: RequestHeaderConfig, clientCaPems: readonly string[]): Promise<string | undefined> {
  if (config.clientCaFile === undefined) return undefined;
  const pem = await readFile(config.clientCaFile, 'utf8');
  const clientCas = new Set(clientCaPems.flatMap(parseCertificates).map((ca) => ca.fingerprint256));
  // As kube-apiserver refuses it: with a CA shared and no allowed names, every client certificate could name any user.
  if (config.allowedNames.length === 0 && parseCertificates(pem).some((ca) => clientCas.has(ca.fingerprint256)))
    throw new Error('the client CA and --requestheader-client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified');
  return pem;
}

/** The CA bundle of `--client-ca-file`, when one is given; throws naming the flag when it holds no certificate. */
async function loadClientCa(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const pem = await readFile(path, 'utf8');
  try {
    parseCertificates(pem);
  } catch (error) {
    throw new Error(`--client-ca-file ${path}: ${(error as Error).message}`, { cause: error });
  }
  return pem;
}

export const authenticationOptions = {
  flags: {
    'requestheader-client-ca-file': { type: 'string', usage: '[--requestheader-client-ca-file FILE]' },
    'requestheader-allowed-names': { type: 'string', multiple: true, usage: '[--requestheader-allowed-names NAME,...]' },
    'requestheader-username-headers': { type: 'string', multiple: true, usage: '[--requestheader-username-headers H,...]' },
    'requestheader-uid-headers': { type: 'string', multiple: true, usage: '[--requestheader-uid-headers H,...]' },
    'requestheader-group-headers': { type: 'string', multiple: true, usage: '[--requestheader-group-headers H,...]' },
    'requestheader-extra-headers-prefix': { type: 'string', multiple: true, usage: '[--requestheader-extra-headers-prefix P,...]' },
    'authentication-kubeconfig': { type: 'string', usage: '[--authentication-kubeconfig FILE]' },
    'authentication-token-webhook-cache-ttl': { type: 'string', usage: '[--authentication-token-webhook-cache-ttl DURATION]' },
    'token-auth-file': { type: 'string', usage: '[--token-auth-file FILE]' },
    'client-ca-file': { type: 'string', usage: '[--client-ca-file FILE]' },
  },
  environmentNote:
    "in a pod, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT: the kubeconfig flags left empty default to the in-cluster config (the pod's ServiceAccount)",

  parse(values, env) {
    const list = (flag: string, fallback: readonly string[] = []) => stringSlice(flag, values, fallback);
    const uidHeaders = list('requestheader-uid-headers', standardRequestHeaderNames.uidHeaders);
    // kube refuses uid headers that leave out the one its aggregator sends.
    if (uidHeaders.length > 0 && !uidHeaders.some((header) => header.toLowerCase() === 'x-remote-uid'))
      throw new FlagError('--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work');
    const caFile = fileFlag(values, 'requestheader-client-ca-file');
    return {
      requestHeader: Object.freeze({
        ...(caFile ? { clientCaFile: caFile } : {}),
        allowedNames: list('requestheader-allowed-names'),
        usernameHeaders: list('requestheader-username-headers', standardRequestHeaderNames.usernameHeaders),
        uidHeaders,
        groupHeaders: list('requestheader-group-headers', standardRequestHeaderNames.groupHeaders),
        extraHeaderPrefixes: list('requestheader-extra-headers-prefix', standardRequestHeaderNames.extraHeaderPrefixes),
      }),
      authentication: Object.freeze({ tokenAuthFile: fileFlag(values, 'token-auth-file'), clientCaFile: fileFlag(values, 'client-ca-file') }),
      delegation: {
        authenticationKubeconfig: kubeconfigFlag(values, 'authentication-kubeconfig'),
        tokenCacheTtlMs: goDuration('authentication-token-webhook-cache-ttl', stringFlag(values, 'authentication-token-webhook-cache-ttl'), 10_000),
        inCluster:
          env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT ? { host: env.KUBERNETES_SERVICE_HOST, port: env.KUBERNETES_SERVICE_PORT } : undefined,
      },
    };
  },

  async applyTo({ options, logger, lifecycle, pki, mainApiServer }: AuthenticationContext): Promise<Authentication> {
    // Each authenticator verifies against its own CAs; the listener asks for certificates from all of them.
    const clientCaFilePem = await loadClientCa(options.authentication.clientCaFile);
    // Cairn's own client CA (the admin kubeconfig) is trusted beside --client-ca-file's, standalone and in a cluster alike.
    const userCaPems = [pki.clientCaPem, ...(clientCaFilePem !== undefined ? [clientCaFilePem] : [])];
    const requestHeaderCaPem = await loadRequestHeaderCa(options.requestHeader, userCaPems);
    const tokenFile =
      options.authentication.tokenAuthFile === undefined ? undefined : await TokenFileAuthenticator.fromFile(options.authentication.tokenAuthFile);
    for (const warning of tokenFile?.warnings ?? []) logger.warn(warning);
    let clientCasChanged = (): void => {};
    const client = mainApiServer.authenticationClient;
    // In a cluster, kube-system/extension-apiserver-authentication supplies whatever the --requestheader-* flags leave out.
    const cluster =
      client &&
      new ClusterAuthentication({
        client,
        requestHeader: options.requestHeader.clientCaFile === undefined,
        onChange: (info) => {
          logger.info(
            { requestHeader: info.requestHeader !== undefined, allowedNames: info.requestHeader?.allowedNames },
            'cluster authentication configuration loaded',
          );
          clientCasChanged();
        },
        onError: (error) => logger.warn({ err: error }, 'reading kube-system/extension-apiserver-authentication'),
      });
    if (cluster) {
      await cluster.start();
      lifecycle.addPreShutdownHook('cluster-authentication', () => cluster.stop());
    }
    // As kube-apiserver: the token file first, then the main API server's TokenReview.
    const tokenAuthenticators: TokenAuthenticator[] = [
      ...(tokenFile ? [tokenFile] : []),
      ...(client ? [new TokenReviewAuthenticator({ client, cacheTtlMs: options.delegation.tokenCacheTtlMs })] : []),
    ];
    return {
      // kube's delegating order: front proxy (its certificate says nothing of the user, its headers do), x509, bearer token.
      authenticators: [
        ...(requestHeaderCaPem !== undefined ? [new RequestHeaderAuthenticator({ ...options.requestHeader, clientCaPems: [requestHeaderCaPem] })] : []),
        ...(cluster ? [cluster.authenticators[0]] : []),
        new X509Authenticator({ clientCaPems: userCaPems }),
        ...(cluster ? cluster.authenticators.slice(1) : []),
        ...(tokenAuthenticators.length > 0 ? [new BearerTokenAuthenticator(tokenAuthenticators)] : []),
      ],
      clientCaPems: () => [...userCaPems, ...(requestHeaderCaPem !== undefined ? [requestHeaderCaPem] : []), ...(cluster?.clientCaPems() ?? [])],
      onClientCasChange: (listener) => (clientCasChanged = listener),
    };
  },
} satisfies ConcernOptions<AuthenticationOptions> & { applyTo(context: AuthenticationContext): Promise<Authentication> };
