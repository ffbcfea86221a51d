/**
 * The server's configuration, from flags and environment variables (flags win).
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { defaultInFlightLimits, type InFlightLimits } from '../http/filters/max-in-flight.js';
import { defaultRequestTimeoutMs } from '../http/filters/timeout.js';
import { parseGoDuration } from '../machinery/duration.js';
import { defaultObjectCacheSize } from '../storage/sql-object-store.js';
import { standardRequestHeaderNames, type RequestHeaderNames } from '../auth/request-header-authenticator.js';
import type { AuditConfig } from '../audit/auditing.js';
import { cipherSuites, tlsMinVersion } from './tls-options.js';

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

/**
 * Authentication and authorization delegated to the main API server, with the flags of
 * k8s.io/apiserver's `DelegatingAuthenticationOptions` and `DelegatingAuthorizationOptions`.
 */
export interface DelegationConfig {
  /** `--authentication-kubeconfig`: TokenReview, and the cluster's client and front-proxy CAs; off when unset. */
  readonly authenticationKubeconfig?: string;
  /** `--authorization-kubeconfig`: SubjectAccessReview for every request; the local policy when unset. */
  readonly authorizationKubeconfig?: string;
  /** `--authentication-token-webhook-cache-ttl` in ms (10 s). */
  readonly tokenCacheTtlMs: number;
  /** `--authorization-webhook-cache-authorized-ttl` in ms (10 s). */
  readonly authorizedCacheTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` in ms (10 s). */
  readonly unauthorizedCacheTtlMs: number;
  /** `--authorization-always-allow-paths` as given; undefined for the default (kube's `/healthz,/readyz,/livez` when delegating). */
  readonly alwaysAllowPaths?: readonly string[];
  /**
   * The main API server as a pod sees it, from `KUBERNETES_SERVICE_HOST` and
   * `KUBERNETES_SERVICE_PORT` (both set, as client-go's `rest.InClusterConfig` requires);
   * undefined outside a pod. When set, a kubeconfig flag left empty is replaced by the
   * in-cluster config: this address, the pod's ServiceAccount token and CA.
   */
  readonly inCluster?: InClusterService;
}

/** The address of the main API server's Service inside the cluster. */
export interface InClusterService {
  readonly host: string;
  readonly port: string;
}

/** Where the database is. */
export interface DatabaseLocation {
  readonly dataDir: string;
  /** A PostgreSQL URL; PGlite under the data directory when unset. */
  readonly databaseUrl?: string;
}

/** Everything the server process is configured with. */
export interface ServerConfig extends DatabaseLocation {
  readonly command: 'start' | 'migrate';
  readonly port: number;
  readonly bindAddress: string;
  /** How long the event log keeps history, in ms (kube's default etcd compaction window is 5 min; ours is 15). */
  readonly eventRetentionMs: number;
  readonly compactionIntervalMs: number;
  /**
   * `--object-cache-size`: the most objects of one resource kept in memory to serve
   * reads (a resource with more is read from the database, by index); 0 turns the
   * object cache off.
   */
  readonly objectCacheSize: number;
  /** `--watch-cache-size`: the most events the watch cache keeps (kube's watch cache sizes, for every resource at once). */
  readonly watchCacheSize: number;
  /** `--watch-cache-max-age`: how long the watch cache keeps an event at most, in ms; older history is read from the event log. */
  readonly watchCacheMaxAgeMs: number;
  /** Extra names and IPs for the serving certificate (e.g. `cairn.cairn-system.svc`). */
  readonly tlsSans: readonly string[];
  /**
   * A serving certificate to use instead of the generated one (kube's --tls-cert-file): PEM, the
   * CA's certificate concatenated after the server's. Set together with {@link tlsPrivateKeyFile}.
   */
  readonly tlsCertFile?: string;
  /** The private key of {@link tlsCertFile} (kube's --tls-private-key-file). */
  readonly tlsPrivateKeyFile?: string;
  /** kube's `--tls-min-version` (`VersionTLS12`, `VersionTLS13`, …); Node's default (TLS 1.2) when unset. */
  readonly tlsMinVersion?: string;
  /** kube's `--tls-cipher-suites` (Go's names); Node's defaults when empty. */
  readonly tlsCipherSuites: readonly string[];
  /** kube's `--request-timeout` in ms (1m0s). */
  readonly requestTimeoutMs: number;
  /** kube's `--max-requests-inflight` and `--max-mutating-requests-inflight` (400 and 200; 0 is no limit). */
  readonly inFlightLimits: InFlightLimits;
  readonly logLevel: string;
  /** How long shutdown waits for requests in flight before closing connections, in ms. */
  readonly shutdownGraceMs: number;
  /**
   * How long the server keeps serving with /readyz failing before it stops listening,
   * in ms, so load balancers drain it first (kube's --shutdown-delay-duration).
   */
  readonly shutdownDelayMs: number;
  /** How often a watch that allows bookmarks gets a BOOKMARK event, in ms (kube: about a minute). */
  readonly watchBookmarkIntervalMs: number;
  /** Whether `start` also runs the sample controller in-process (off with `--no-controller`). */
  readonly controller: boolean;
  /**
   * `--garbage-collector`: whether this server finishes deletion cascades and collects
   * objects whose owners are gone; `auto` is on standalone and off when delegating to a
   * main API server, whose kube-controller-manager's collector handles Cairn's kinds.
   */
  readonly garbageCollector: 'auto' | 'on' | 'off';
  /** Who may tell Cairn the user in `X-Remote-*` headers (kube-apiserver's aggregator). */
  readonly requestHeader: RequestHeaderConfig;
  /** Delegated authentication and authorization (in a cluster). */
  readonly delegation: DelegationConfig;
  readonly audit: AuditConfig;
  /** Users of their own, as kube-apiserver's flags name them (standalone or not). */
  readonly authentication: AuthenticationConfig;
  /** `--authorization-policy-file`: RBAC roles and bindings for a standalone Cairn; the bootstrap policy alone when unset. */
  readonly authorizationPolicyFile?: string;
  /**
   * Mutating- and ValidatingWebhookConfigurations to call, read at startup (standalone;
   * in a cluster the main API server's are called too).
   */
  readonly admissionWebhookConfigFile?: string;
}

/** Users Cairn authenticates itself, beside the admin kubeconfig's certificate. */
export interface AuthenticationConfig {
  /** `--token-auth-file`: static bearer tokens, kube's CSV. */
  readonly tokenAuthFile?: string;
  /** `--client-ca-file`: a CA whose client certificates name users (CN) and groups (O). */
  readonly clientCaFile?: string;
}

const usage = `usage: cairn [start|migrate] [--port N] [--bind-address ADDR] [--data-dir DIR]
  [--database-url URL] [--event-retention SECONDS] [--compaction-interval SECONDS] [--object-cache-size N]
  [--watch-cache-size N] [--watch-cache-max-age SECONDS]
  [--tls-san NAME]... [--tls-cert-file FILE --tls-private-key-file FILE] [--tls-min-version VERSION]
  [--tls-cipher-suites NAME,...] [--request-timeout DURATION] [--max-requests-inflight N]
  [--max-mutating-requests-inflight N] [--log-level LEVEL] [--shutdown-grace SECONDS] [--shutdown-delay SECONDS]
  [--watch-bookmark-interval SECONDS] [--no-controller] [--garbage-collector auto|on|off]
  [--admission-webhook-config-file FILE]
  [--requestheader-client-ca-file FILE] [--requestheader-allowed-names NAME,...]
  [--requestheader-username-headers H,...] [--requestheader-uid-headers H,...]
  [--requestheader-group-headers H,...] [--requestheader-extra-headers-prefix P,...]
  [--authentication-kubeconfig FILE] [--authorization-kubeconfig FILE]
  [--authentication-token-webhook-cache-ttl DURATION] [--authorization-webhook-cache-authorized-ttl DURATION]
  [--authorization-webhook-cache-unauthorized-ttl DURATION] [--authorization-always-allow-paths PATH,...]
  [--audit-policy-file FILE] [--audit-log-path FILE|-] [--audit-log-maxsize MB] [--audit-log-maxbackup N]
  [--audit-log-maxage DAYS] [--audit-log-format json]
  [--token-auth-file FILE] [--client-ca-file FILE] [--authorization-policy-file FILE]
environment: PORT, BIND_ADDRESS, DATA_DIR, DATABASE_URL, EVENT_RETENTION_SECONDS,
  COMPACTION_INTERVAL_SECONDS, OBJECT_CACHE_SIZE, TLS_SANS (comma-separated), LOG_LEVEL, SHUTDOWN_DELAY_SECONDS;
  in a pod, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT: the kubeconfig flags left
  empty default to the in-cluster config (the pod's ServiceAccount)`;

function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number of seconds, got "${value}"\n${usage}`);
  return n * 1000;
}

/** A duration flag as Go's `time.ParseDuration` reads it (`10s`, `1m30s`, `500ms`, `0`), in ms; negative ones are refused. */
function goDuration(flag: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (error) {
    throw new Error(`invalid duration "${value}" for --${flag}\n${usage}`, { cause: error });
  }
  // As kube validates --request-timeout: "can not be negative value".
  if (ms < 0) throw new Error(`invalid duration "${value}" for --${flag}: it can not be negative value\n${usage}`);
  return ms;
}

function delegationConfig(values: Record<string, string | string[] | boolean | undefined>, env: NodeJS.ProcessEnv): DelegationConfig {
  const file = (flag: string) => (typeof values[flag] === 'string' ? resolve(values[flag]) : undefined);
  const duration = (flag: string) => goDuration(flag, values[flag] as string | undefined, 10_000);
  const paths = values['authorization-always-allow-paths'] as string[] | undefined;
  return Object.freeze({
    authenticationKubeconfig: file('authentication-kubeconfig'),
    authorizationKubeconfig: file('authorization-kubeconfig'),
    tokenCacheTtlMs: duration('authentication-token-webhook-cache-ttl'),
    authorizedCacheTtlMs: duration('authorization-webhook-cache-authorized-ttl'),
    unauthorizedCacheTtlMs: duration('authorization-webhook-cache-unauthorized-ttl'),
    alwaysAllowPaths: paths === undefined ? undefined : stringSlice('authorization-always-allow-paths', paths, []),
    inCluster:
      env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT ? { host: env.KUBERNETES_SERVICE_HOST, port: env.KUBERNETES_SERVICE_PORT } : undefined,
  });
}

/**
 * A list flag as pflag's StringSlice reads it: comma-separated, repeatable (the first use
 * replaces the default), an empty value an empty list, and, as kube validates, no empty item.
 */
function stringSlice(flag: string, values: readonly string[] | undefined, fallback: readonly string[]): readonly string[] {
  if (values === undefined) return fallback;
  const items = values.flatMap((value) => (value === '' ? [] : value.split(',').map((item) => item.trim())));
  if (items.includes('')) throw new Error(`empty value in "--${flag}"\n${usage}`);
  return Object.freeze(items);
}

function requestHeaderConfig(values: Record<string, string | string[] | boolean | undefined>): RequestHeaderConfig {
  const list = (flag: string, fallback: readonly string[] = []) => stringSlice(flag, values[flag] as string[] | undefined, fallback);
  const uidHeaders = list('requestheader-uid-headers', standardRequestHeaderNames.uidHeaders);
  // kube refuses uid headers that leave out the one its aggregator sends.
  if (uidHeaders.length > 0 && !uidHeaders.some((header) => header.toLowerCase() === 'x-remote-uid'))
    throw new Error(`--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work\n${usage}`);
  const caFile = values['requestheader-client-ca-file'] as string | undefined;
  return Object.freeze({
    ...(caFile ? { clientCaFile: resolve(caFile) } : {}),
    allowedNames: list('requestheader-allowed-names'),
    usernameHeaders: list('requestheader-username-headers', standardRequestHeaderNames.usernameHeaders),
    uidHeaders,
    groupHeaders: list('requestheader-group-headers', standardRequestHeaderNames.groupHeaders),
    extraHeaderPrefixes: list('requestheader-extra-headers-prefix', standardRequestHeaderNames.extraHeaderPrefixes),
  });
}

/** An int flag as pflag reads it, which kube then requires to be non-negative. */
function count(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new Error(`invalid argument "${value}" for "--${flag}" flag: parsing "${value}": invalid syntax\n${usage}`);
  if (n < 0) throw new Error(`--${flag} ${n} can't be a negative number\n${usage}`);
  return n;
}

function auditConfig(values: Record<string, string | string[] | boolean | undefined>): AuditConfig {
  const format = (values['audit-log-format'] as string | undefined) ?? 'json';
  if (format === 'legacy') throw new Error(`--audit-log-format legacy is not supported: Cairn writes the json format only\n${usage}`);
  if (format !== 'json') throw new Error(`invalid audit log format ${format}, allowed formats are "legacy,json"\n${usage}`);
  const policyFile = values['audit-policy-file'] as string | undefined;
  const logPath = values['audit-log-path'] as string | undefined;
  return Object.freeze({
    ...(policyFile ? { policyFile: resolve(policyFile) } : {}),
    ...(logPath ? { logPath: logPath === '-' ? '-' : resolve(logPath) } : {}),
    logMaxSizeMb: count('audit-log-maxsize', values['audit-log-maxsize'] as string | undefined, 100),
    logMaxBackups: count('audit-log-maxbackup', values['audit-log-maxbackup'] as string | undefined, 100),
    logMaxAgeDays: count('audit-log-maxage', values['audit-log-maxage'] as string | undefined, 366),
  });
}

/** The TLS flags, checked as kube checks them at startup. */
function tlsFlags(values: Record<string, string | string[] | boolean | undefined>): Pick<ServerConfig, 'tlsMinVersion' | 'tlsCipherSuites'> {
  const minVersion = values['tls-min-version'] as string | undefined;
  const suites = stringSlice('tls-cipher-suites', values['tls-cipher-suites'] as string[] | undefined, []);
  try {
    if (minVersion !== undefined) tlsMinVersion(minVersion);
    cipherSuites(suites);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`, { cause: error });
  }
  return { ...(minVersion !== undefined ? { tlsMinVersion: minVersion } : {}), tlsCipherSuites: suites };
}

/** The database every command of the process uses, from `--data-dir`/`DATA_DIR` and `--database-url`/`DATABASE_URL`. */
export function databaseLocation(flags: { readonly 'data-dir'?: string; readonly 'database-url'?: string }, env: NodeJS.ProcessEnv): DatabaseLocation {
  return { dataDir: resolve(flags['data-dir'] ?? env.DATA_DIR ?? '.data'), databaseUrl: flags['database-url'] ?? (env.DATABASE_URL || undefined) };
}

/** Parses argv and the environment; throws with the usage on bad input. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      'bind-address': { type: 'string' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      'event-retention': { type: 'string' },
      'compaction-interval': { type: 'string' },
      'object-cache-size': { type: 'string' },
      'watch-cache-size': { type: 'string' },
      'watch-cache-max-age': { type: 'string' },
      'tls-san': { type: 'string', multiple: true },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'tls-min-version': { type: 'string' },
      'tls-cipher-suites': { type: 'string', multiple: true },
      'request-timeout': { type: 'string' },
      'max-requests-inflight': { type: 'string' },
      'max-mutating-requests-inflight': { type: 'string' },
      'log-level': { type: 'string' },
      'shutdown-grace': { type: 'string' },
      'shutdown-delay': { type: 'string' },
      'watch-bookmark-interval': { type: 'string' },
      'no-controller': { type: 'boolean' },
      'garbage-collector': { type: 'string' },
      'requestheader-client-ca-file': { type: 'string' },
      'requestheader-allowed-names': { type: 'string', multiple: true },
      'requestheader-username-headers': { type: 'string', multiple: true },
      'requestheader-uid-headers': { type: 'string', multiple: true },
      'requestheader-group-headers': { type: 'string', multiple: true },
      'requestheader-extra-headers-prefix': { type: 'string', multiple: true },
      'authentication-kubeconfig': { type: 'string' },
      'authorization-kubeconfig': { type: 'string' },
      'authentication-token-webhook-cache-ttl': { type: 'string' },
      'authorization-webhook-cache-authorized-ttl': { type: 'string' },
      'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
      'authorization-always-allow-paths': { type: 'string', multiple: true },
      'audit-policy-file': { type: 'string' },
      'audit-log-path': { type: 'string' },
      'audit-log-maxsize': { type: 'string' },
      'audit-log-maxbackup': { type: 'string' },
      'audit-log-maxage': { type: 'string' },
      'audit-log-format': { type: 'string' },
      'token-auth-file': { type: 'string' },
      'client-ca-file': { type: 'string' },
      'authorization-policy-file': { type: 'string' },
      'admission-webhook-config-file': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) throw new Error(usage);
  const command = positionals[0] ?? 'start';
  if (command !== 'start' && command !== 'migrate') throw new Error(`unknown command "${command}"\n${usage}`);
  const portText = values.port ?? env.PORT ?? '8443';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port "${portText}"\n${usage}`);
  const file = (flag: 'token-auth-file' | 'client-ca-file' | 'authorization-policy-file' | 'admission-webhook-config-file') =>
    values[flag] ? resolve(values[flag]) : undefined;
  const garbageCollector = values['garbage-collector'] ?? 'auto';
  if (garbageCollector !== 'auto' && garbageCollector !== 'on' && garbageCollector !== 'off')
    throw new Error(`--garbage-collector must be auto, on or off, got "${garbageCollector}"\n${usage}`);
  const tlsCertFile = values['tls-cert-file'];
  const tlsPrivateKeyFile = values['tls-private-key-file'];
  if ((tlsCertFile === undefined) !== (tlsPrivateKeyFile === undefined)) throw new Error(`--tls-cert-file and --tls-private-key-file go together\n${usage}`);
  return Object.freeze({
    command,
    port,
    bindAddress: values['bind-address'] ?? env.BIND_ADDRESS ?? '127.0.0.1',
    ...databaseLocation(values, env),
    eventRetentionMs: seconds('event retention', values['event-retention'] ?? env.EVENT_RETENTION_SECONDS, 15 * 60),
    compactionIntervalMs: seconds('compaction interval', values['compaction-interval'] ?? env.COMPACTION_INTERVAL_SECONDS, 60),
    objectCacheSize: count('object-cache-size', values['object-cache-size'] ?? (env.OBJECT_CACHE_SIZE || undefined), defaultObjectCacheSize),
    watchCacheSize: count('watch-cache-size', values['watch-cache-size'] ?? (env.WATCH_CACHE_SIZE || undefined), 10_000),
    watchCacheMaxAgeMs: seconds('watch cache max age', values['watch-cache-max-age'] ?? env.WATCH_CACHE_MAX_AGE_SECONDS, 5 * 60),
    tlsSans: Object.freeze([
      ...(values['tls-san'] ?? []),
      ...(env.TLS_SANS
        ? env.TLS_SANS.split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : []),
    ]),
    tlsCertFile: tlsCertFile === undefined ? undefined : resolve(tlsCertFile),
    tlsPrivateKeyFile: tlsPrivateKeyFile === undefined ? undefined : resolve(tlsPrivateKeyFile),
    ...tlsFlags(values),
    requestTimeoutMs: goDuration('request-timeout', values['request-timeout'], defaultRequestTimeoutMs),
    inFlightLimits: Object.freeze({
      readOnly: count('max-requests-inflight', values['max-requests-inflight'], defaultInFlightLimits.readOnly),
      mutating: count('max-mutating-requests-inflight', values['max-mutating-requests-inflight'], defaultInFlightLimits.mutating),
    }),
    logLevel: values['log-level'] ?? env.LOG_LEVEL ?? 'info',
    shutdownGraceMs: seconds('shutdown grace', values['shutdown-grace'], 10),
    shutdownDelayMs: seconds('shutdown delay', values['shutdown-delay'] ?? env.SHUTDOWN_DELAY_SECONDS, 0),
    watchBookmarkIntervalMs: seconds('watch bookmark interval', values['watch-bookmark-interval'], 60),
    controller: !values['no-controller'],
    garbageCollector,
    requestHeader: requestHeaderConfig(values),
    delegation: delegationConfig(values, env),
    audit: auditConfig(values),
    authentication: Object.freeze({ tokenAuthFile: file('token-auth-file'), clientCaFile: file('client-ca-file') }),
    authorizationPolicyFile: file('authorization-policy-file'),
    admissionWebhookConfigFile: file('admission-webhook-config-file'),
  });
}
