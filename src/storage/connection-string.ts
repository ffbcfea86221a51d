/**
 * PostgreSQL connection strings as libpq reads them, since node-postgres (and
 * pg-connection-string under it) takes one host and ignores libpq's choice of server:
 * several hosts and ports (`postgres://h1:5432,h2:5433/cairn`), `target_session_attrs`,
 * the `sslmode`s and their files, `passfile`, the keyword/value form (`host=h1,h2
 * port=5432`) and the PG* environment variables for whatever the string leaves out.
 */
import { statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Which server of the list a connection keeps (libpq's `target_session_attrs`). */
export const targetSessionAttrs = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof targetSessionAttrs)[number];

/** How much TLS a connection asks for and verifies (libpq's `sslmode`). */
export const sslModes = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof sslModes)[number];

/** One server of the list: a host name or address (or a Unix socket directory) and a port. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** Everything a connection string, with the environment's defaults, says about how to connect. */
export interface ConnectionSettings {
  /** The servers in the order connections try them. */
  readonly servers: readonly ServerAddress[];
  readonly database: string;
  readonly user: string;
  /** From the string or PGPASSWORD; the password file is read per server when this is unset. */
  readonly password?: string;
  readonly passfile: string;
  readonly targetSessionAttrs: TargetSessionAttrs;
  readonly sslmode: SslMode;
  /** The CA file; for `require`, present only when it exists, which makes `require` verify the chain as `verify-ca` does (libpq's rule). */
  readonly sslrootcert?: string;
  readonly sslcert: string;
  readonly sslkey: string;
  /** Per server attempt, in seconds; undefined: no limit (libpq's 0). */
  readonly connectTimeoutSeconds?: number;
  readonly applicationName?: string;
  /** Command-line options sent to the server at connection start (`-c name=value …`). */
  readonly options?: string;
}

/** What a connection string cannot mean; the message never repeats the string, which may hold a password. */
export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError';
}

/** Where libpq looks for files when the string and the environment name none. */
export interface ConnectionDefaults {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** The operating system user, libpq's default `user`. */
  readonly osUser: string;
  /** Whether a file exists (the default sslrootcert counts only when it does). */
  readonly exists: (path: string) => boolean;
}

/** The keywords Cairn reads; others that libpq knows and that change nothing here are accepted and ignored. */
const ignoredKeywords = new Set([
  'hostaddr',
  'fallback_application_name',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
  'sslcompression',
  'sslsni',
  'sslcrl',
  'sslcrldir',
  'sslpassword',
  'ssl_min_protocol_version',
  'ssl_max_protocol_version',
  'gssencmode',
  'krbsrvname',
  'gsslib',
  'requirepeer',
  'channel_binding',
  'client_encoding',
  'service',
  'replication',
]);
const readKeywords = new Set([
  'host',
  'port',
  'dbname',
  'user',
  'password',
  'passfile',
  'target_session_attrs',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'application_name',
  'options',
]);

/** The environment variable libpq reads for each keyword the string leaves out. */
const environmentVariables: Readonly<Record<string, string>> = {
  host: 'PGHOST',
  port: 'PGPORT',
  dbname: 'PGDATABASE',
  user: 'PGUSER',
  password: 'PGPASSWORD',
  passfile: 'PGPASSFILE',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  application_name: 'PGAPPNAME',
  options: 'PGOPTIONS',
};

/**
 * Reads `text` (a `postgres://` or `postgresql://` URI, or `keyword=value` pairs) as
 * libpq does, filling what it leaves out from the PG* variables and libpq's defaults.
 *
 * @example
 * parseConnectionString('postgres://cairn@db1:5432,db2:5433/cairn?target_session_attrs=read-write&sslmode=verify-full')
 */
export function parseConnectionString(text: string, defaults: ConnectionDefaults = processDefaults()): ConnectionSettings {
  const given = /^postgres(ql)?:\/\//.test(text) ? parseUri(text) : parseKeywordValue(text);
  for (const keyword of given.keys()) {
    if (!readKeywords.has(keyword) && !ignoredKeywords.has(keyword)) throw new ConnectionStringError(`invalid connection option "${keyword}"`);
  }
  const { env, home } = defaults;
  const value = (keyword: string): string | undefined => {
    const explicit = given.get(keyword);
    if (explicit !== undefined && explicit !== '') return explicit;
    const fromEnv = env[environmentVariables[keyword]];
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };
  const user = value('user') ?? defaults.osUser;
  const targetSessionAttrsValue = value('target_session_attrs') ?? 'any';
  if (!(targetSessionAttrs as readonly string[]).includes(targetSessionAttrsValue))
    throw new ConnectionStringError(`invalid target_session_attrs "${targetSessionAttrsValue}": choose one of ${targetSessionAttrs.join(', ')}`);
  const sslmode = value('sslmode') ?? 'prefer';
  if (!(sslModes as readonly string[]).includes(sslmode)) throw new ConnectionStringError(`invalid sslmode "${sslmode}": choose one of ${sslModes.join(', ')}`);
  const postgresDirectory = join(home, '.postgresql');
  const explicitRootCert = value('sslrootcert');
  const defaultRootCert = join(postgresDirectory, 'root.crt');
  const sslrootcert = explicitRootCert ?? (defaults.exists(defaultRootCert) || sslmode.startsWith('verify') ? defaultRootCert : undefined);
  const timeout = value('connect_timeout');
  return {
    servers: servers(value('host'), value('port'), env.PGPORT || '5432'),
    database: value('dbname') ?? user,
    user,
    password: given.get('password') ?? env.PGPASSWORD,
    passfile: value('passfile') ?? join(home, '.pgpass'),
    targetSessionAttrs: targetSessionAttrsValue as TargetSessionAttrs,
    sslmode: sslmode as SslMode,
    sslrootcert,
    sslcert: value('sslcert') ?? join(postgresDirectory, 'postgresql.crt'),
    sslkey: value('sslkey') ?? join(postgresDirectory, 'postgresql.key'),
    connectTimeoutSeconds: timeout === undefined ? undefined : connectTimeout(timeout),
    applicationName: value('application_name'),
    options: value('options'),
  };
}

/** libpq's defaults from this process's environment and user. */
export function processDefaults(): ConnectionDefaults {
  return { env: process.env, home: process.env.HOME ?? homedir(), osUser: osUser(), exists: fileExists };
}

/** The operating system user's name; a container's uid may have no passwd entry, and then USER or postgres. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'postgres';
  }
}

/** `host:port` of each server, for messages. */
export function describeServer(server: ServerAddress): string {
  return server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}

/** The servers from the host and port lists: one port for every host, or one per host, an empty one the default (libpq's rule). */
function servers(hostList: string | undefined, portList: string | undefined, defaultPort: string): ServerAddress[] {
  // libpq's default is the Unix socket; Cairn's images and tests reach PostgreSQL over TCP, so localhost.
  const hosts = (hostList ?? 'localhost').split(',').map((host) => host.trim() || 'localhost');
  const ports = (portList ?? '').split(',').map((port) => port.trim());
  if (ports.length !== 1 && ports.length !== hosts.length)
    throw new ConnectionStringError(`could not match ${ports.length} port numbers to ${hosts.length} hosts`);
  return hosts.map((host, index) => ({ host, port: portNumber((ports.length === 1 ? ports[0] : ports[index]) || defaultPort) }));
}

function portNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new ConnectionStringError(`invalid port number: "${text}"`);
  return port;
}

/** libpq waits at least 2 s per attempt; 0 or less waits for ever. */
function connectTimeout(text: string): number | undefined {
  const seconds = Number(text);
  if (!/^-?\d+$/.test(text.trim())) throw new ConnectionStringError(`invalid integer value "${text}" for connection option "connect_timeout"`);
  return seconds <= 0 ? undefined : Math.max(seconds, 2);
}

/**
 * `postgres://[user[:password]@][host[:port]][,host[:port]…][/dbname][?keyword=value&…]`,
 * percent-decoded; query keywords override the parts before them. URL cannot parse a
 * host list, so the authority is split here. Each host's port lands in the `port`
 * list at the host's place, empty where it has none.
 */
function parseUri(text: string): Map<string, string> {
  const given = new Map<string, string>();
  const rest = text.replace(/^postgres(ql)?:\/\//, '');
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const slashAt = beforeQuery.indexOf('/');
  const authority = slashAt < 0 ? beforeQuery : beforeQuery.slice(0, slashAt);
  const path = slashAt < 0 ? '' : beforeQuery.slice(slashAt + 1);
  const atAt = authority.lastIndexOf('@');
  if (atAt >= 0) {
    const userInfoPart = authority.slice(0, atAt);
    const colonAt = userInfoPart.indexOf(':');
    given.set('user', decode(colonAt < 0 ? userInfoPart : userInfoPart.slice(0, colonAt)));
    if (colonAt >= 0) given.set('password', decode(userInfoPart.slice(colonAt + 1)));
  }
  const hostList = atAt >= 0 ? authority.slice(atAt + 1) : authority;
  if (hostList !== '') {
    const hosts: string[] = [];
    const ports: string[] = [];
    for (const hostPort of hostList.split(',')) {
      const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort);
      if (!match) throw new ConnectionStringError('invalid host in the connection URI');
      hosts.push(decode(match[1].replace(/^\[(.*)\]$/, '$1')));
      ports.push(match[2] ?? '');
    }
    given.set('host', hosts.join(','));
    if (ports.some((port) => port !== '')) given.set('port', ports.join(','));
  }
  if (path !== '') given.set('dbname', decode(path));
  if (queryAt >= 0) {
    for (const pair of rest.slice(queryAt + 1).split('&')) {
      if (pair === '') continue;
      const equalsAt = pair.indexOf('=');
      if (equalsAt < 0) throw new ConnectionStringError(`missing "=" after "${decode(pair)}" in the connection URI query`);
      const keyword = decode(pair.slice(0, equalsAt));
      const value = decode(pair.slice(equalsAt + 1));
      // libpq also takes JDBC's ssl=true as sslmode=require.
      if (keyword === 'ssl' && value === 'true') given.set('sslmode', 'require');
      else given.set(keyword, value);
    }
  }
  return given;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ConnectionStringError('invalid percent-encoding in the connection URI');
  }
}

/** `keyword = value` pairs separated by spaces; a value may be single-quoted, with `\'` and `\\` inside. */
function parseKeywordValue(text: string): Map<string, string> {
  const given = new Map<string, string>();
  const pair = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|((?:[^\s'\\]|\\.)*))/y;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    pair.lastIndex = at;
    const match = pair.exec(text);
    if (!match) throw new ConnectionStringError('invalid connection string: expected keyword=value pairs or a postgres:// URI');
    given.set(match[1], (match[2] ?? match[3]).replace(/\\(.)/g, '$1'));
    at = pair.lastIndex;
  }
  return given;
}

function fileExists(path: string): boolean {
  try {
    // Sync: read once at start, as libpq does before its first connection.
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
