/**
 * Serving's flags (the address, TLS, the request timeout and in-flight limits, shutdown's
 * grace and delay, watch bookmarks) and what they apply to a server: its TLS material (the
 * generated PKI under the data directory, or `--tls-cert-file`'s certificate, reloaded
 * when the files change), and `serve`, which listens, writes the admin kubeconfig and
 * puts the listener's end in the lifecycle, as kube's `SecureServingInfo.Serve`.
 */
import { join, resolve } from 'node:path';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { defaultInFlightLimits, type InFlightLimits } from '../../http/filters/max-in-flight.js';
import { defaultRequestTimeoutMs } from '../../http/filters/timeout.js';
import { writeKubeconfig } from '../kubeconfig.js';
import type { Lifecycle } from '../lifecycle.js';
import { ensurePki, loadServingCertificate, type Pki } from '../pki.js';
import { reloadServingCertificate } from '../serving-certificate-reloader.js';
import { listen, type Listener } from '../serving.js';
import { cipherSuites, servingTlsOptions, tlsMinVersion } from '../tls-options.js';
import { count, FlagError, goDuration, seconds, stringFlag, stringSlice, type ConcernOptions } from './flags.js';

/** What the serving flags say. */
export interface ServingOptions {
  readonly port: number;
  readonly bindAddress: string;
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
  /** How long shutdown waits for requests in flight before closing connections, in ms. */
  readonly shutdownGraceMs: number;
  /**
   * How long the server keeps serving with /readyz failing before it stops listening,
   * in ms, so load balancers drain it first (kube's --shutdown-delay-duration).
   */
  readonly shutdownDelayMs: number;
  /** How often a watch that allows bookmarks gets a BOOKMARK event, in ms (kube: about a minute). */
  readonly watchBookmarkIntervalMs: number;
}

/** A server's listener once it serves. */
export interface Serving {
  readonly listener: Listener;
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  readonly kubeconfigPath: string;
}

/** Serving as the options apply it. */
export interface SecureServing {
  readonly pki: Pki;
  /** Listens with `handler`, asking for client certificates of `clientCaPems`, and writes the admin kubeconfig. */
  serve(handler: RequestListener, clientCaPems: readonly string[]): Promise<Serving>;
}

/** Where the admin kubeconfig is written, for the in-process clients of the API. */
export const adminKubeconfigPath = (dataDir: string): string => join(dataDir, 'kubeconfig');

/** What applying the serving options needs of the server. */
interface ServingContext {
  readonly options: ServingOptions & { readonly dataDir: string };
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
}

/**
 * The generated TLS material under the data directory, serving with the certificate of
 * `--tls-cert-file` instead when one is given (the kubeconfig then trusts its CA).
 */
export async function servingPki(options: ServingContext['options']): Promise<Pki> {
  const generated = await ensurePki(join(options.dataDir, 'pki'), { hosts: ['localhost', '127.0.0.1', '::1', ...options.tlsSans] });
  if (options.tlsCertFile === undefined || options.tlsPrivateKeyFile === undefined) return generated;
  const serving = await loadServingCertificate(options.tlsCertFile, options.tlsPrivateKeyFile);
  return Object.freeze({ ...generated, servingCaPem: serving.caPem, servingCertPem: serving.certPem, servingKeyPem: serving.keyPem });
}

/** `--shutdown-delay` in seconds, or kube's `--shutdown-delay-duration` as a Go duration (`5s`); one of them. */
function shutdownDelayMs(secondsText: string | undefined, durationText: string | undefined, envSeconds: string | undefined): number {
  if (secondsText !== undefined && durationText !== undefined) throw new FlagError('--shutdown-delay and --shutdown-delay-duration are one setting: give one');
  if (durationText !== undefined) return goDuration('shutdown-delay-duration', durationText, 0);
  return seconds('shutdown delay', secondsText ?? envSeconds, 0);
}

export const servingOptions = {
  flags: {
    port: { type: 'string', usage: '[--port N]' },
    'bind-address': { type: 'string', usage: '[--bind-address ADDR]' },
    'tls-san': { type: 'string', multiple: true, usage: '[--tls-san NAME]...' },
    'tls-cert-file': { type: 'string', usage: '[--tls-cert-file FILE --tls-private-key-file FILE]' },
    'tls-private-key-file': { type: 'string', usage: '' },
    'tls-min-version': { type: 'string', usage: '[--tls-min-version VERSION]' },
    'tls-cipher-suites': { type: 'string', multiple: true, usage: '[--tls-cipher-suites NAME,...]' },
    'request-timeout': { type: 'string', usage: '[--request-timeout DURATION]' },
    'max-requests-inflight': { type: 'string', usage: '[--max-requests-inflight N]' },
    'max-mutating-requests-inflight': { type: 'string', usage: '[--max-mutating-requests-inflight N]' },
    'shutdown-grace': { type: 'string', usage: '[--shutdown-grace SECONDS]' },
    'shutdown-delay': { type: 'string', usage: '[--shutdown-delay SECONDS | --shutdown-delay-duration DURATION]' },
    'shutdown-delay-duration': { type: 'string', usage: '' },
    'watch-bookmark-interval': { type: 'string', usage: '[--watch-bookmark-interval SECONDS]' },
  },
  environment: ['PORT', 'BIND_ADDRESS', 'TLS_SANS (comma-separated)', 'SHUTDOWN_DELAY_SECONDS'],

  parse(values, env) {
    const flag = (name: string) => stringFlag(values, name);
    const portText = flag('port') ?? env.PORT ?? '8443';
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new FlagError(`invalid port "${portText}"`);
    const tlsCertFile = flag('tls-cert-file');
    const tlsPrivateKeyFile = flag('tls-private-key-file');
    if ((tlsCertFile === undefined) !== (tlsPrivateKeyFile === undefined)) throw new FlagError('--tls-cert-file and --tls-private-key-file go together');
    // Checked as kube checks them at startup.
    const minVersion = flag('tls-min-version');
    const suites = stringSlice('tls-cipher-suites', values, []);
    try {
      if (minVersion !== undefined) tlsMinVersion(minVersion);
      cipherSuites(suites);
    } catch (error) {
      throw new FlagError((error as Error).message, { cause: error });
    }
    return {
      port,
      bindAddress: flag('bind-address') ?? env.BIND_ADDRESS ?? '127.0.0.1',
      tlsSans: Object.freeze([
        ...((values['tls-san'] as string[] | undefined) ?? []),
        ...(env.TLS_SANS
          ? env.TLS_SANS.split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : []),
      ]),
      tlsCertFile: tlsCertFile === undefined ? undefined : resolve(tlsCertFile),
      tlsPrivateKeyFile: tlsPrivateKeyFile === undefined ? undefined : resolve(tlsPrivateKeyFile),
      ...(minVersion !== undefined ? { tlsMinVersion: minVersion } : {}),
      tlsCipherSuites: suites,
      requestTimeoutMs: goDuration('request-timeout', flag('request-timeout'), defaultRequestTimeoutMs),
      inFlightLimits: Object.freeze({
        readOnly: count('max-requests-inflight', flag('max-requests-inflight'), defaultInFlightLimits.readOnly),
        mutating: count('max-mutating-requests-inflight', flag('max-mutating-requests-inflight'), defaultInFlightLimits.mutating),
      }),
      shutdownGraceMs: seconds('shutdown grace', flag('shutdown-grace'), 10),
      shutdownDelayMs: shutdownDelayMs(flag('shutdown-delay'), flag('shutdown-delay-duration'), env.SHUTDOWN_DELAY_SECONDS),
      watchBookmarkIntervalMs: seconds('watch bookmark interval', flag('watch-bookmark-interval'), 60),
    };
  },

  async applyTo({ options, logger, lifecycle }: ServingContext): Promise<SecureServing> {
    const pki = await servingPki(options);
    const { insecureSuites, ...tlsOptions } = servingTlsOptions(options.tlsMinVersion, options.tlsCipherSuites);
    for (const suite of insecureSuites) logger.warn(`Use of insecure cipher '${suite}' detected.`);
    return {
      pki,
      async serve(handler, clientCaPems) {
        const tls = { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems, ...tlsOptions };
        const listener = await listen(handler, tls, options.bindAddress, options.port, lifecycle.draining);
        const reloader =
          options.tlsCertFile !== undefined && options.tlsPrivateKeyFile !== undefined
            ? reloadServingCertificate({
                certFile: options.tlsCertFile,
                keyFile: options.tlsPrivateKeyFile,
                certPem: pki.servingCertPem,
                keyPem: pki.servingKeyPem,
                onChange: (certPem, keyPem) => listener.setServingCertificate(certPem, keyPem),
                logger,
              })
            : undefined;
        if (reloader) lifecycle.addPreShutdownHook('serving-certificate-reloader', () => reloader.stop());
        // The last pre-shutdown hook: requests in flight get --shutdown-grace to finish, then their connections close.
        lifecycle.addPreShutdownHook('listener', () => listener.close(options.shutdownGraceMs));
        const url = `https://127.0.0.1:${listener.port}`;
        const kubeconfigPath = adminKubeconfigPath(options.dataDir);
        await writeKubeconfig(kubeconfigPath, { server: url, caPem: pki.servingCaPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem });
        logger.info({ url, kubeconfig: kubeconfigPath }, 'listening');
        return { listener, url, kubeconfigPath };
      },
    };
  },
} satisfies ConcernOptions<ServingOptions> & { applyTo(context: ServingContext): Promise<SecureServing> };
