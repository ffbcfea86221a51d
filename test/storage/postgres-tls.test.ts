/**
 * Cairn's PostgreSQL connections against a server that takes only TLS: every sslmode
 * as libpq means it (require encrypts, verify-ca checks the chain against sslrootcert,
 * verify-full also the host's name), client certificates for `cert` authentication,
 * and the password file with libpq's permission rule. One server serves every case.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki, issueClientCertificate } from '../../src/server/pki.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { issueOtherCa } from '../support/other-ca.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';

describe('PostgreSQL over TLS', () => {
  let cluster: PostgresCluster;
  let files: string;
  let caFile: string;
  let otherCaFile: string;
  let certFile: string;
  let keyFile: string;
  let passFile: string;

  beforeAll(async () => {
    files = await mkdtemp(join(tmpdir(), 'cairn-pg-tls-'));
    // The serving certificate names 127.0.0.1 only: "localhost" is the wrong name for verify-full.
    const pki = await ensurePki(files, { hosts: ['127.0.0.1'] });
    const client = issueClientCertificate(pki.clientCaPem, pki.clientCaKeyPem, { commonName: 'certuser' });
    const write = async (name: string, text: string) => {
      const path = join(files, name);
      await writeFile(path, text, { mode: 0o600 });
      return path;
    };
    caFile = await write('ca.crt', pki.servingCaPem);
    otherCaFile = await write('other-ca.crt', (await issueOtherCa()).caPem);
    certFile = await write('client.crt', client.certPem);
    keyFile = await write('client.key', client.keyPem);
    cluster = await startPostgresCluster({
      files: { 'server.crt': pki.servingCertPem, 'server.key': pki.servingKeyPem, 'client-ca.crt': pki.clientCaPem },
      settings: ['ssl = on', "ssl_cert_file = 'server.crt'", "ssl_key_file = 'server.key'", "ssl_ca_file = 'client-ca.crt'"],
      // TLS or nothing over TCP: certuser by its certificate, pwuser by password, postgres trusted; the socket for setup.
      hba: [
        'local all all trust',
        'hostssl all certuser 127.0.0.1/32 cert',
        'hostssl all pwuser 127.0.0.1/32 scram-sha-256',
        'hostssl all postgres 127.0.0.1/32 trust',
      ],
    });
    const admin = new PostgresDatabase({ connectionString: `host=${cluster.directory} port=${cluster.port} user=postgres dbname=postgres` });
    try {
      await admin.query('CREATE ROLE certuser LOGIN', []);
      await admin.query("CREATE ROLE pwuser LOGIN PASSWORD 'pw secret'", []);
    } finally {
      await admin.close();
    }
    passFile = await write('pgpass', `127.0.0.1:${cluster.port}:postgres:pwuser:pw secret\n`);
  });
  afterAll(async () => {
    await cluster?.destroy();
    await rm(files, { recursive: true, force: true });
  });

  /** The session's TLS as the server sees it, through Cairn's pool. */
  const session = async (connectionString: string): Promise<{ ssl: boolean; user: string }> => {
    const database = new PostgresDatabase({ connectionString });
    try {
      const [row] = await database.query('SELECT ssl, current_user AS user FROM pg_stat_ssl WHERE pid = pg_backend_pid()', []);
      return row as { ssl: boolean; user: string };
    } finally {
      await database.close();
    }
  };
  const url = (query: string, user = 'postgres', host = '127.0.0.1') => `postgres://${user}@${host}:${cluster.port}/postgres?${query}`;

  it('encrypts with sslmode=require and prefer, and is refused with disable', async () => {
    expect(await session(url('sslmode=require'))).toEqual({ ssl: true, user: 'postgres' });
    expect(await session(url('sslmode=prefer'))).toEqual({ ssl: true, user: 'postgres' });
    await expect(session(url('sslmode=disable'))).rejects.toThrow(/no pg_hba.conf entry for host "127.0.0.1", user "postgres".*no encryption/);
  });

  it('verifies the chain against sslrootcert with verify-ca, and refuses another CA', async () => {
    expect(await session(url(`sslmode=verify-ca&sslrootcert=${caFile}`))).toEqual({ ssl: true, user: 'postgres' });
    await expect(session(url(`sslmode=verify-ca&sslrootcert=${otherCaFile}`))).rejects.toThrow(
      /self[- ]signed certificate in certificate chain|unable to verify|unable to get local issuer/,
    );
    // libpq's rule: require verifies the chain too once a root certificate is given.
    await expect(session(url(`sslmode=require&sslrootcert=${otherCaFile}`))).rejects.toThrow(
      /self[- ]signed certificate in certificate chain|unable to verify|unable to get local issuer/,
    );
    await expect(session(url(`sslmode=verify-ca&sslrootcert=${join(files, 'missing.crt')}`))).rejects.toThrow('root certificate file');
  });

  it('checks the host name with verify-full', async () => {
    expect(await session(url(`sslmode=verify-full&sslrootcert=${caFile}`))).toEqual({ ssl: true, user: 'postgres' });
    await expect(session(url(`sslmode=verify-full&sslrootcert=${caFile}`, 'postgres', 'localhost'))).rejects.toThrow(
      /Hostname\/IP does not match certificate's altnames/,
    );
  });

  it('authenticates with a client certificate (sslcert, sslkey), and is refused without one', async () => {
    expect(await session(url(`sslmode=verify-full&sslrootcert=${caFile}&sslcert=${certFile}&sslkey=${keyFile}`, 'certuser'))).toEqual({
      ssl: true,
      user: 'certuser',
    });
    await expect(session(url(`sslmode=require&sslcert=${join(files, 'none.crt')}`, 'certuser'))).rejects.toThrow(/certificate/);
    await chmod(keyFile, 0o644);
    await expect(session(url(`sslmode=require&sslcert=${certFile}&sslkey=${keyFile}`, 'certuser'))).rejects.toThrow('has group or world access');
    await chmod(keyFile, 0o600);
  });

  it('reads the password from passfile, which must not be readable by others', async () => {
    expect(await session(url(`sslmode=require&passfile=${passFile}`, 'pwuser'))).toEqual({ ssl: true, user: 'pwuser' });
    await chmod(passFile, 0o644);
    await expect(session(url(`sslmode=require&passfile=${passFile}`, 'pwuser'))).rejects.toThrow(/password authentication failed|password/);
    await chmod(passFile, 0o600);
  });
});
