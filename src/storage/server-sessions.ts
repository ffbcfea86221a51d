/**
 * Sessions on the server a connection string chooses, as libpq chooses it: each try
 * goes through the servers in order, with the TLS its `sslmode` asks for, and keeps the
 * first session Cairn can write through. node-postgres connects to one host and never
 * asks, so a standby or a demoted primary would take writes that fail for ever.
 */
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { ConnectionStringError, describeServer, type ConnectionSettings, type ServerAddress } from './connection-string.js';
import { passwordFromFile } from './password-file.js';

/** One way to reach a server: its address and the TLS of this try (false: none). */
export interface ServerCandidate {
  readonly server: ServerAddress;
  readonly config: pg.ClientConfig;
}

/** Thrown when no server of the list gives a session Cairn can write through; names each server and why. */
export class NoWritableServerError extends Error {
  override readonly name = 'NoWritableServerError';
  /** SQLSTATE sqlclient_unable_to_establish_sqlconnection: storage answers it as unavailable. */
  readonly code = '08001';
}

/** A session the server would not let Cairn write through: a standby, or a read-only primary. */
export class ReadOnlySessionError extends Error {
  override readonly name = 'ReadOnlySessionError';
  readonly code = '25006';
}

/**
 * SQLSTATEs and socket errors after which the session, and likely its server, is gone
 * or cannot write: read-only transaction, admin/crash shutdown, the server starting or
 * stopping, and connection failures.
 */
const sessionEndingCodes = new Set(['25006', '57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** Whether `error` means the session cannot go on (a new one may land on another server). */
export function endsSession(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (sessionEndingCodes.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|not queryable|does not support SSL/i.test(message);
}

/**
 * The ways to reach each server, in order: the servers as listed, and for `allow` and
 * `prefer` a plain and a TLS try each (libpq's fallback).
 */
export function serverCandidates(settings: ConnectionSettings, extra: pg.ClientConfig = {}): ServerCandidate[] {
  if (settings.targetSessionAttrs !== 'any' && settings.targetSessionAttrs !== 'read-write' && settings.targetSessionAttrs !== 'primary')
    throw new ConnectionStringError(
      `target_session_attrs=${settings.targetSessionAttrs} would give Cairn sessions it cannot write through: use read-write (any means the same to Cairn) or primary`,
    );
  const clientCertificate = clientCertificateOptions(settings);
  return settings.servers.flatMap((server) =>
    tlsTries(settings, server, clientCertificate).map((ssl) => ({
      server,
      config: {
        ...extra,
        host: server.host,
        port: server.port,
        database: settings.database,
        user: settings.user,
        password:
          settings.password ?? (async () => (await passwordFromFile(settings.passfile, { ...server, database: settings.database, user: settings.user })) ?? ''),
        ssl,
        ...(settings.connectTimeoutSeconds !== undefined ? { connectionTimeoutMillis: settings.connectTimeoutSeconds * 1000 } : {}),
        ...(settings.applicationName !== undefined ? { application_name: settings.applicationName } : {}),
        ...(settings.options !== undefined ? { options: settings.options } : {}),
      },
    })),
  );
}

/**
 * Fails with a {@link ReadOnlySessionError} naming the server unless `client`'s session
 * can write, as libpq's `target_session_attrs=read-write` asks (`primary` asks only that
 * it is not in recovery).
 */
export async function checkWritable(client: pg.ClientBase, server: ServerAddress, settings: ConnectionSettings): Promise<void> {
  const { rows } = await client.query<{ in_recovery: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only",
  );
  const { in_recovery: inRecovery, read_only: readOnly } = rows[0];
  if (inRecovery) throw new ReadOnlySessionError(`${describeServer(server)} is in recovery (a standby): its sessions are read-only`);
  if (readOnly === 'on' && settings.targetSessionAttrs !== 'primary')
    throw new ReadOnlySessionError(`${describeServer(server)} gives read-only sessions (default_transaction_read_only is on)`);
}

/**
 * A connected, checked session on the first server of the list that gives one, for
 * what needs a session of its own (LISTEN, session locks).
 */
export async function connectWritableSession(settings: ConnectionSettings, extra: pg.ClientConfig = {}): Promise<{ client: pg.Client; server: ServerAddress }> {
  const reasons: string[] = [];
  for (const candidate of serverCandidates(settings, extra)) {
    const client = new pg.Client(candidate.config);
    // A failure while connecting is also emitted; the rejection below reports it.
    const ignore = (): void => undefined;
    client.on('error', ignore);
    try {
      await client.connect();
      await checkWritable(client, candidate.server, settings);
      client.off('error', ignore);
      return { client, server: candidate.server };
    } catch (error) {
      reasons.push(reason(candidate, error));
      await client.end().catch(() => undefined);
    }
  }
  throw noWritableServer(settings, reasons);
}

/** The error after every server refused, naming each and why. */
export function noWritableServer(settings: ConnectionSettings, reasons: readonly string[]): NoWritableServerError {
  return new NoWritableServerError(`no server of ${settings.servers.map(describeServer).join(',')} gives Cairn a writable session: ${reasons.join('; ')}`);
}

/** Why one try failed, for {@link noWritableServer}. */
export function reason(candidate: ServerCandidate, error: unknown): string {
  const tls = candidate.config.ssl ? ' (TLS)' : '';
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof ReadOnlySessionError ? message : `${describeServer(candidate.server)}${tls}: ${message}`;
}

/** The `ssl` option of each try at `server`. */
function tlsTries(settings: ConnectionSettings, server: ServerAddress, clientCertificate: ConnectionOptions): (false | ConnectionOptions)[] {
  const unverified: ConnectionOptions = { ...clientCertificate, rejectUnauthorized: false };
  // libpq never asks a Unix socket for TLS.
  if (server.host.startsWith('/')) return [false];
  switch (settings.sslmode) {
    case 'disable':
      return [false];
    case 'allow':
      return [false, unverified];
    case 'prefer':
      return [unverified, false];
    case 'require':
      // libpq's rule: with a root certificate file, require verifies the chain as verify-ca does.
      return [settings.sslrootcert === undefined ? unverified : verified(settings, server, clientCertificate, false)];
    case 'verify-ca':
      return [verified(settings, server, clientCertificate, false)];
    case 'verify-full':
      return [verified(settings, server, clientCertificate, true)];
  }
}

/** TLS that checks the chain against sslrootcert and, for verify-full, the server's name against the host tried. */
function verified(settings: ConnectionSettings, server: ServerAddress, clientCertificate: ConnectionOptions, checkName: boolean): ConnectionOptions {
  const path = settings.sslrootcert;
  if (path === undefined || !isFile(path))
    throw new ConnectionStringError(
      `root certificate file "${path ?? ''}" does not exist: either provide the file (sslrootcert) or change sslmode to disable server certificate verification`,
    );
  return {
    ...clientCertificate,
    ca: readFileSync(path, 'utf8'),
    rejectUnauthorized: true,
    // node-postgres would check the name "localhost" for an IP address; the host tried is what libpq checks.
    checkServerIdentity: checkName ? (_name, certificate) => checkServerIdentity(server.host, certificate) : () => undefined,
    ...(checkName && isIP(server.host) === 0 ? { servername: server.host } : {}),
  };
}

/** The client certificate and key when the certificate file exists (libpq skips a missing one). */
function clientCertificateOptions(settings: ConnectionSettings): ConnectionOptions {
  if (settings.sslmode === 'disable' || !isFile(settings.sslcert)) return {};
  if (!isFile(settings.sslkey)) throw new ConnectionStringError(`certificate present, but not private key file "${settings.sslkey}"`);
  const { mode, uid } = statSync(settings.sslkey);
  // libpq's rule: u=rw (0600) or less, or u=rw,g=r (0640) when root owns it.
  if (mode & (uid === 0 ? 0o137 : 0o077))
    throw new ConnectionStringError(`private key file "${settings.sslkey}" has group or world access; permissions should be u=rw (0600) or less`);
  return { cert: readFileSync(settings.sslcert, 'utf8'), key: readFileSync(settings.sslkey, 'utf8') };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
