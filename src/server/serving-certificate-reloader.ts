/**
 * `--tls-cert-file` and `--tls-private-key-file` reloaded without a restart, as kube's
 * DynamicServingCertificateController does: the files' directories are watched (a
 * Secret volume swaps a symlink, not the files) and checked periodically besides, and a
 * new pair is served to new connections once the certificate and the key match. A
 * half-written pair (a new certificate with the old key) is logged and ignored, the pair
 * served until then kept.
 */
import { watch, type FSWatcher } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { loadServingCertificate } from './pki.js';

/** kube's `FileRefreshDuration`: how often the files are read even when no change was seen. */
const defaultCheckIntervalMs = 60_000;

/** What the reloader watches and whom it tells. */
export interface ServingCertificateReloaderOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** The pair served now. */
  readonly certPem: string;
  readonly keyPem: string;
  /** Called with each new pair that matches. */
  readonly onChange: (certPem: string, keyPem: string) => void;
  readonly logger: Logger;
  readonly checkIntervalMs?: number;
}

/** Watches the serving certificate's files until `stop()`. */
export function reloadServingCertificate(options: ServingCertificateReloaderOptions): { stop(): void } {
  const { certFile, keyFile, logger } = options;
  let served = { certPem: options.certPem, keyPem: options.keyPem };
  let checking: Promise<void> | undefined;
  let again = false;

  const checkOnce = async (): Promise<void> => {
    let loaded;
    try {
      loaded = await loadServingCertificate(certFile, keyFile);
    } catch (error) {
      logger.warn({ err: error, certFile, keyFile }, 'the serving certificate files do not hold a matching pair: still serving the previous one');
      return;
    }
    if (loaded.certPem === served.certPem && loaded.keyPem === served.keyPem) return;
    served = { certPem: loaded.certPem, keyPem: loaded.keyPem };
    options.onChange(loaded.certPem, loaded.keyPem);
    const certificate = new X509Certificate(loaded.certPem);
    logger.info({ certFile, serialNumber: certificate.serialNumber, notAfter: certificate.validTo }, 'serving certificate reloaded');
  };
  // One read at a time; changes seen meanwhile are read once it is done.
  const check = (): void => {
    if (checking) {
      again = true;
      return;
    }
    checking = checkOnce().finally(() => {
      checking = undefined;
      if (again) {
        again = false;
        check();
      }
    });
  };

  const watchers: FSWatcher[] = [...new Set([dirname(certFile), dirname(keyFile)])].map((dir) =>
    watch(dir, check).on('error', (error) => logger.warn({ err: error, dir }, 'watching the serving certificate files; the periodic check goes on')),
  );
  const timer = setInterval(check, options.checkIntervalMs ?? defaultCheckIntervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
