/**
 * The command line as the options modules read it: every flag's default, environment
 * variable and validation message as kube's flags have them, and a usage that lists them.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

describe('parseConfig', () => {
  it('defaults to the embedded mode with kube-like durations in milliseconds', () => {
    const config = parseConfig([], {});
    expect(config).toMatchObject({
      command: 'start',
      port: 8443,
      bindAddress: '127.0.0.1',
      databaseUrl: undefined,
      eventRetentionMs: 15 * 60 * 1000,
      compactionIntervalMs: 60 * 1000,
      shutdownGraceMs: 10 * 1000,
      shutdownDelayMs: 0,
    });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('takes flags over environment variables', () => {
    const config = parseConfig(['--port', '9443', '--event-retention', '30', '--tls-san', 'cairn.cairn-system.svc'], {
      PORT: '1',
      DATABASE_URL: 'postgres://db/cairn',
      EVENT_RETENTION_SECONDS: '5',
      TLS_SANS: 'a.example, b.example',
    });
    expect(config.port).toBe(9443);
    expect(config.eventRetentionMs).toBe(30_000);
    expect(config.databaseUrl).toBe('postgres://db/cairn');
    expect(config.tlsSans).toEqual(['cairn.cairn-system.svc', 'a.example', 'b.example']);
  });

  it('reads the database flags: a transaction pooler and a direct URL beside it, and refuses a connection string libpq would', () => {
    expect(
      parseConfig(['--database-pooler=transaction', '--database-listen-url', 'postgres://db:5432/cairn'], { DATABASE_URL: 'postgres://bouncer:6432/cairn' }),
    ).toMatchObject({ databaseUrl: 'postgres://bouncer:6432/cairn', databaseListenUrl: 'postgres://db:5432/cairn', databasePooler: 'transaction' });
    expect(parseConfig(['--database-url', 'postgres://a,b/cairn'], { DATABASE_POOLER: 'none' }).databasePooler).toBeUndefined();
    expect(() => parseConfig(['--database-url', 'postgres://db/cairn', '--database-pooler=session'], {})).toThrow(
      '--database-pooler must be none or transaction',
    );
    expect(() => parseConfig(['--database-listen-url', 'postgres://db/cairn'], {})).toThrow('need --database-url');
    expect(() => parseConfig(['--database-url', 'postgres://u:secret@db/cairn?sslmode=sometimes'], {})).toThrow(/^--database-url: invalid sslmode "sometimes"/);
  });

  it('bounds the watch cache by count (--watch-cache-size) and by age (--watch-cache-max-age, seconds)', () => {
    expect(parseConfig([], {})).toMatchObject({ watchCacheSize: 10_000, watchCacheMaxAgeMs: 300_000 });
    expect(parseConfig(['--watch-cache-size', '50', '--watch-cache-max-age', '2.5'], { WATCH_CACHE_SIZE: '7' })).toMatchObject({
      watchCacheSize: 50,
      watchCacheMaxAgeMs: 2_500,
    });
    expect(parseConfig([], { WATCH_CACHE_SIZE: '7', WATCH_CACHE_MAX_AGE_SECONDS: '60' })).toMatchObject({ watchCacheSize: 7, watchCacheMaxAgeMs: 60_000 });
    expect(() => parseConfig(['--watch-cache-size=-1'], {})).toThrow(/can't be a negative number/);
    expect(() => parseConfig(['--watch-cache-max-age=soon'], {})).toThrow(/non-negative number of seconds/);
  });

  it('bounds the object cache per resource with --object-cache-size (OBJECT_CACHE_SIZE), 0 turning it off', () => {
    expect(parseConfig([], {}).objectCacheSize).toBe(10_000);
    expect(parseConfig(['--object-cache-size', '0'], { OBJECT_CACHE_SIZE: '5' }).objectCacheSize).toBe(0);
    expect(parseConfig([], { OBJECT_CACHE_SIZE: '500' }).objectCacheSize).toBe(500);
    expect(() => parseConfig(['--object-cache-size=-1'], {})).toThrow(/can't be a negative number/);
    expect(() => parseConfig(['--object-cache-size=lots'], {})).toThrow(/invalid argument "lots"/);
  });

  it('runs the sample controller in-process unless --no-controller', () => {
    expect(parseConfig([], {}).controller).toBe(true);
    expect(parseConfig(['--no-controller'], {}).controller).toBe(false);
  });

  it('takes --garbage-collector auto (the default), on or off, and refuses anything else', () => {
    expect(parseConfig([], {}).garbageCollector).toBe('auto');
    expect(parseConfig(['--garbage-collector=on'], {}).garbageCollector).toBe('on');
    expect(parseConfig(['--garbage-collector', 'off'], {}).garbageCollector).toBe('off');
    expect(() => parseConfig(['--garbage-collector=yes'], {})).toThrow(/--garbage-collector must be auto, on or off, got "yes"/);
  });

  it('takes a serving certificate and key from files, as kube-apiserver does, only as a pair', () => {
    expect(parseConfig([], {})).toMatchObject({ tlsCertFile: undefined, tlsPrivateKeyFile: undefined });
    const config = parseConfig(['--tls-cert-file', '/etc/cairn/serving/tls.crt', '--tls-private-key-file=serving/tls.key'], {});
    expect(config.tlsCertFile).toBe('/etc/cairn/serving/tls.crt');
    expect(config.tlsPrivateKeyFile).toBe(resolve('serving/tls.key'));
    expect(() => parseConfig(['--tls-cert-file', 'tls.crt'], {})).toThrow(/--tls-cert-file and --tls-private-key-file go together/);
    expect(() => parseConfig(['--tls-private-key-file', 'tls.key'], {})).toThrow(/go together/);
  });

  it('reads admission webhook configurations from a file only when --admission-webhook-config-file names one', () => {
    expect(parseConfig([], {}).admissionWebhookConfigFile).toBeUndefined();
    expect(parseConfig(['--admission-webhook-config-file=webhooks.yaml'], {}).admissionWebhookConfigFile).toBe(resolve('webhooks.yaml'));
  });

  it('takes the standalone authentication and authorization files of kube-apiserver’s flags, as absolute paths', () => {
    expect(parseConfig([], {})).toMatchObject({ authentication: { tokenAuthFile: undefined, clientCaFile: undefined }, authorizationPolicyFile: undefined });
    const config = parseConfig(['--token-auth-file', 'tokens.csv', '--client-ca-file=/etc/cairn/ca.crt', '--authorization-policy-file', 'policy.yaml'], {});
    expect(config.authentication).toEqual({ tokenAuthFile: resolve('tokens.csv'), clientCaFile: '/etc/cairn/ca.crt' });
    expect(config.authorizationPolicyFile).toBe(resolve('policy.yaml'));
  });

  it('has front-proxy authentication off, with the headers kube-apiserver sends, unless a request-header CA is given', () => {
    expect(parseConfig([], {}).requestHeader).toEqual({
      allowedNames: [],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: ['X-Remote-Uid'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    });
  });

  it('takes the --requestheader-* flags as kube-apiserver does: comma-separated, repeatable, an empty value an empty list', () => {
    const config = parseConfig(
      [
        '--requestheader-client-ca-file',
        'pki/front-proxy-ca.crt',
        '--requestheader-allowed-names=front-proxy-client,aggregator',
        '--requestheader-allowed-names',
        'system:auth-proxy',
        '--requestheader-username-headers=X-Remote-User, X-Proxy-User',
        '--requestheader-group-headers',
        'X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-,X-Proxy-Extra-',
        '--requestheader-uid-headers=',
      ],
      {},
    );
    expect(config.requestHeader).toEqual({
      clientCaFile: resolve('pki/front-proxy-ca.crt'),
      allowedNames: ['front-proxy-client', 'aggregator', 'system:auth-proxy'],
      usernameHeaders: ['X-Remote-User', 'X-Proxy-User'],
      uidHeaders: [],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-', 'X-Proxy-Extra-'],
    });
  });

  it('refuses empty --requestheader-* items and uid headers without X-Remote-Uid, as kube validates them', () => {
    expect(() => parseConfig(['--requestheader-group-headers=X-Remote-Group,'], {})).toThrow(/empty value in "--requestheader-group-headers"/);
    expect(() => parseConfig(['--requestheader-allowed-names', ' '], {})).toThrow(/empty value in "--requestheader-allowed-names"/);
    expect(() => parseConfig(['--requestheader-uid-headers=X-Proxy-Uid'], {})).toThrow(/without specifying the standard X-Remote-Uid/);
    expect(parseConfig(['--requestheader-uid-headers=x-remote-uid,X-Proxy-Uid'], {}).requestHeader.uidHeaders).toEqual(['x-remote-uid', 'X-Proxy-Uid']);
  });

  it('parses the migrate command and rejects bad input', () => {
    expect(parseConfig(['migrate'], {}).command).toBe('migrate');
    expect(() => parseConfig(['serve'], {})).toThrow(/unknown command/);
    expect(() => parseConfig(['--port', 'x'], {})).toThrow(/invalid port/);
    expect(() => parseConfig(['--event-retention=-1'], {})).toThrow(/non-negative/);
  });

  it('reads --event-retention-overrides as kube reads --watch-cache-sizes, resource.group#duration, none shorter than --event-retention', () => {
    expect(parseConfig([], {}).eventRetentionOverridesMs).toEqual(new Map());
    const config = parseConfig(['--event-retention', '1h', '--event-retention-overrides', 'pipelines.cairn.dev#7d,runnerclasses.cairn.dev#3600'], {});
    expect(config.eventRetentionOverridesMs).toEqual(
      new Map([
        ['pipelines.cairn.dev', 7 * 24 * 3600 * 1000],
        ['runnerclasses.cairn.dev', 3600 * 1000],
      ]),
    );
    expect(parseConfig([], { EVENT_RETENTION_OVERRIDES: 'pipelines.cairn.dev#2w' }).eventRetentionOverridesMs.get('pipelines.cairn.dev')).toBe(
      14 * 24 * 3600 * 1000,
    );
    expect(() => parseConfig(['--event-retention-overrides', 'pods#7d'], {})).toThrow(/unknown resource "pods", choose one of: pipelines.cairn.dev/);
    expect(() => parseConfig(['--event-retention-overrides', 'pipelines.cairn.dev=7d'], {})).toThrow(/expected resource.group#duration/);
    expect(() => parseConfig(['--event-retention', '1d', '--event-retention-overrides', 'pipelines.cairn.dev#1h'], {})).toThrow(
      /shorter than --event-retention/,
    );
  });

  it('caps each log at 10 MiB by default, as kubelet caps a container log, with no age limit', () => {
    expect(parseConfig([], {})).toMatchObject({ logMaxBytes: 10 * 1024 * 1024, logMaxAgeMs: 0 });
    expect(parseConfig(['--log-max-bytes-per-pipeline', '512Ki', '--log-max-age', '7d'], {})).toMatchObject({
      logMaxBytes: 512 * 1024,
      logMaxAgeMs: 7 * 24 * 3600 * 1000,
    });
    expect(parseConfig([], { LOG_MAX_BYTES_PER_PIPELINE: '1000', LOG_MAX_AGE: '3600' })).toMatchObject({ logMaxBytes: 1000, logMaxAgeMs: 3600_000 });
    expect(parseConfig(['--log-max-bytes-per-pipeline=0'], {}).logMaxBytes).toBe(0);
    expect(() => parseConfig(['--log-max-bytes-per-pipeline', '10MB'], {})).toThrow(/invalid size "10MB" for --log-max-bytes-per-pipeline/);
  });

  it('reads --event-retention as seconds or as a duration of days and weeks', () => {
    expect(parseConfig(['--event-retention', '7d'], {}).eventRetentionMs).toBe(7 * 24 * 3600 * 1000);
    expect(parseConfig(['--event-retention=2w'], {}).eventRetentionMs).toBe(14 * 24 * 3600 * 1000);
    expect(parseConfig([], { EVENT_RETENTION_SECONDS: '1d12h' }).eventRetentionMs).toBe(36 * 3600 * 1000);
    expect(parseConfig(['--event-retention', '600'], {}).eventRetentionMs).toBe(600 * 1000);
    expect(() => parseConfig(['--event-retention', '7 days'], {})).toThrow(/or a duration \(7d, 12h, 30m\), got "7 days"/);
    expect(() => parseConfig(['--event-retention=-1d'], {})).toThrow(/non-negative/);
  });
});

describe('parseConfig: delegated authentication and authorization', () => {
  it('has kube’s flag names and defaults, off unless a kubeconfig is given', () => {
    expect(parseConfig([], {}).delegation).toEqual({
      authenticationKubeconfig: undefined,
      authorizationKubeconfig: undefined,
      tokenCacheTtlMs: 10_000,
      authorizedCacheTtlMs: 10_000,
      unauthorizedCacheTtlMs: 10_000,
      alwaysAllowPaths: undefined,
    });
    const config = parseConfig(
      [
        '--authentication-kubeconfig=kc',
        '--authorization-kubeconfig=/etc/kc',
        '--authentication-token-webhook-cache-ttl=1m30s',
        '--authorization-webhook-cache-authorized-ttl=500ms',
        '--authorization-webhook-cache-unauthorized-ttl=0',
        '--authorization-always-allow-paths=/healthz,/metrics',
        '--authorization-always-allow-paths=/version',
      ],
      {},
    );
    expect(config.delegation).toEqual({
      authenticationKubeconfig: resolve('kc'),
      authorizationKubeconfig: '/etc/kc',
      tokenCacheTtlMs: 90_000,
      authorizedCacheTtlMs: 500,
      unauthorizedCacheTtlMs: 0,
      alwaysAllowPaths: ['/healthz', '/metrics', '/version'],
    });
    expect(parseConfig(['--authorization-always-allow-paths='], {}).delegation.alwaysAllowPaths).toEqual([]);
  });

  it('reads durations as Go does and refuses anything else', () => {
    expect(parseConfig(['--authentication-token-webhook-cache-ttl=1.5h'], {}).delegation.tokenCacheTtlMs).toBe(5_400_000);
    for (const bad of ['10', '-1s', 's', '1d', '1s '])
      expect(() => parseConfig([`--authentication-token-webhook-cache-ttl=${bad}`], {})).toThrow(/invalid duration/);
  });
});

describe('parseConfig: the in-cluster config', () => {
  it('is used in a pod, where KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are both set, and not standalone', () => {
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(parseConfig([], env).delegation.inCluster).toEqual({ host: '10.96.0.1', port: '443' });
    expect(parseConfig([], {}).delegation.inCluster).toBeUndefined();
    expect(parseConfig([], { KUBERNETES_SERVICE_HOST: '10.96.0.1' }).delegation.inCluster).toBeUndefined();
    expect(parseConfig([], { KUBERNETES_SERVICE_HOST: '', KUBERNETES_SERVICE_PORT: '443' }).delegation.inCluster).toBeUndefined();
    // The kubeconfig flags are kept as given; the server prefers them.
    expect(parseConfig(['--authentication-kubeconfig=/etc/kc'], env).delegation).toMatchObject({
      authenticationKubeconfig: '/etc/kc',
      inCluster: { host: '10.96.0.1' },
    });
  });
});

describe('parseConfig: auditing', () => {
  it('has kube-apiserver’s flags and defaults: no policy, no log, rotation at 100 MB keeping 100 backups for 366 days', () => {
    expect(parseConfig([], {}).audit).toEqual({ logMaxSizeMb: 100, logMaxBackups: 100, logMaxAgeDays: 366 });
  });

  it('takes the policy file, the log path (- for stdout) and the rotation flags, sizes in megabytes', () => {
    const config = parseConfig(
      [
        '--audit-policy-file',
        'policy.yaml',
        '--audit-log-path',
        'logs/audit.log',
        '--audit-log-maxsize',
        '1',
        '--audit-log-maxbackup',
        '0',
        '--audit-log-maxage',
        '7',
        '--audit-log-format',
        'json',
      ],
      {},
    );
    expect(config.audit).toEqual({
      policyFile: resolve('policy.yaml'),
      logPath: resolve('logs/audit.log'),
      logMaxSizeMb: 1,
      logMaxBackups: 0,
      logMaxAgeDays: 7,
    });
    expect(parseConfig(['--audit-log-path', '-'], {}).audit.logPath).toBe('-');
  });

  it.each([
    [['--audit-log-maxsize=-1'], "--audit-log-maxsize -1 can't be a negative number"],
    [['--audit-log-maxbackup=-2'], "--audit-log-maxbackup -2 can't be a negative number"],
    [['--audit-log-maxage', '1.5'], 'invalid argument "1.5" for "--audit-log-maxage" flag'],
    [['--audit-log-maxsize', '10M'], 'invalid argument "10M" for "--audit-log-maxsize" flag'],
    [['--audit-log-format', 'legacy'], '--audit-log-format legacy is not supported: Cairn writes the json format only'],
    [['--audit-log-format', 'xml'], 'invalid audit log format xml, allowed formats are "legacy,json"'],
  ])('refuses %j', (args, message) => {
    expect(() => parseConfig(args, {})).toThrow(message);
  });
});

describe('parseConfig: request limits and TLS', () => {
  it('has kube-apiserver’s defaults: a 1m0s request timeout, 400 reads and 200 writes in flight, Node’s TLS defaults', () => {
    const config = parseConfig([], {});
    expect(config.requestTimeoutMs).toBe(60_000);
    expect(config.inFlightLimits).toEqual({ readOnly: 400, mutating: 200 });
    expect(config.tlsMinVersion).toBeUndefined();
    expect(config.tlsCipherSuites).toEqual([]);
  });

  it('reads --request-timeout as a Go duration and the in-flight limits as counts, 0 for none', () => {
    const config = parseConfig(['--request-timeout=1m30s', '--max-requests-inflight=0', '--max-mutating-requests-inflight', '7'], {});
    expect(config.requestTimeoutMs).toBe(90_000);
    expect(config.inFlightLimits).toEqual({ readOnly: 0, mutating: 7 });
    expect(() => parseConfig(['--request-timeout=60'], {})).toThrow(/invalid duration "60" for --request-timeout/);
    expect(() => parseConfig(['--request-timeout=-1s'], {})).toThrow(/can not be negative value/);
    expect(() => parseConfig(['--max-requests-inflight=-1'], {})).toThrow("--max-requests-inflight -1 can't be a negative number");
    expect(() => parseConfig(['--max-mutating-requests-inflight=lots'], {})).toThrow('invalid argument "lots" for "--max-mutating-requests-inflight" flag');
  });

  it('takes the shutdown delay as seconds (--shutdown-delay, SHUTDOWN_DELAY_SECONDS) or as kube’s --shutdown-delay-duration, not both', () => {
    expect(parseConfig(['--shutdown-delay-duration=2500ms'], {}).shutdownDelayMs).toBe(2500);
    expect(parseConfig(['--shutdown-delay', '3'], {}).shutdownDelayMs).toBe(3000);
    expect(parseConfig([], { SHUTDOWN_DELAY_SECONDS: '4' }).shutdownDelayMs).toBe(4000);
    expect(() => parseConfig(['--shutdown-delay=1', '--shutdown-delay-duration=1s'], {})).toThrow(/give one/);
    expect(() => parseConfig(['--shutdown-delay-duration=5'], {})).toThrow(/invalid duration "5"/);
  });

  it('takes kube’s TLS version and cipher suite names, and refuses names it does not know, naming them', () => {
    const config = parseConfig(['--tls-min-version=VersionTLS13', '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256'], {});
    expect(config.tlsMinVersion).toBe('VersionTLS13');
    expect(config.tlsCipherSuites).toEqual(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256']);
    expect(() => parseConfig(['--tls-min-version=TLSv1.3'], {})).toThrow('unknown tls version "TLSv1.3"');
    expect(() => parseConfig(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256'], {})).toThrow(
      "Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist",
    );
    // Insecure, and gone from OpenSSL 3.
    expect(() => parseConfig(['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'], {})).toThrow(/Cipher suite TLS_RSA_WITH_RC4_128_SHA is not available/);
  });
});

describe('the usage', () => {
  it('lists the flags and environment variables of every concern', () => {
    let usage = '';
    try {
      parseConfig(['--help'], {});
    } catch (error) {
      usage = (error as Error).message;
    }
    const flags = [
      ['port', 'tls-cert-file', 'watch-bookmark-interval'],
      ['data-dir', 'watch-cache-max-age'],
      ['no-controller', 'garbage-collector'],
      ['admission-webhook-config-file'],
      ['requestheader-extra-headers-prefix', 'client-ca-file'],
      ['authorization-always-allow-paths', 'authorization-policy-file'],
      ['audit-log-format'],
      ['log-level'],
    ].flat();
    for (const flag of flags) expect(usage).toMatch(new RegExp(`\\[--${flag}[ \\]]`));
    for (const name of ['PORT', 'DATA_DIR', 'WATCH_CACHE_SIZE', 'TLS_SANS', 'SHUTDOWN_DELAY_SECONDS', 'LOG_LEVEL', 'KUBERNETES_SERVICE_HOST'])
      expect(usage).toContain(name);
  });
});
