/**
 * Connection strings read as libpq reads them: host and port lists in both forms, the
 * PG* variables for what a string leaves out, and the values libpq refuses.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStringError, parseConnectionString, type ConnectionDefaults } from './connection-string.js';
import { passwordFromFile } from './password-file.js';

const defaults = (env: NodeJS.ProcessEnv = {}, existing: readonly string[] = []): ConnectionDefaults => ({
  env,
  home: '/home/cairn',
  osUser: 'cairn',
  exists: (path) => existing.includes(path),
});

describe('parseConnectionString', () => {
  it('reads a URI with several hosts, each with its port or the default', () => {
    const settings = parseConnectionString('postgres://u:p%40ss@h1:5433,h2,[::1]:5435/db?target_session_attrs=read-write&connect_timeout=1', defaults());
    expect(settings.servers).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '::1', port: 5435 },
    ]);
    expect(settings).toMatchObject({ user: 'u', password: 'p@ss', database: 'db', targetSessionAttrs: 'read-write', connectTimeoutSeconds: 2 });
  });

  it('reads the keyword/value form: one port for every host, or one per host, and quoted values', () => {
    expect(parseConnectionString("host=a,b port=6000 dbname='my db' password='it\\'s'", defaults())).toMatchObject({
      servers: [
        { host: 'a', port: 6000 },
        { host: 'b', port: 6000 },
      ],
      database: 'my db',
      password: "it's",
    });
    expect(parseConnectionString('host=a,b port=6000,6001', defaults()).servers).toEqual([
      { host: 'a', port: 6000 },
      { host: 'b', port: 6001 },
    ]);
    expect(() => parseConnectionString('host=a,b,c port=1,2', defaults())).toThrow('could not match 2 port numbers to 3 hosts');
  });

  it('fills what the string leaves out from the PG* variables, and the rest from libpq defaults', () => {
    const env = {
      PGHOST: 'e1,e2',
      PGPORT: '7000',
      PGUSER: 'envuser',
      PGPASSWORD: 'envpass',
      PGDATABASE: 'envdb',
      PGSSLMODE: 'require',
      PGTARGETSESSIONATTRS: 'primary',
      PGPASSFILE: '/tmp/pass',
      PGCONNECT_TIMEOUT: '10',
      PGOPTIONS: '-c statement_timeout=5s',
    };
    expect(parseConnectionString('postgres://', defaults(env))).toMatchObject({
      servers: [
        { host: 'e1', port: 7000 },
        { host: 'e2', port: 7000 },
      ],
      user: 'envuser',
      password: 'envpass',
      database: 'envdb',
      sslmode: 'require',
      targetSessionAttrs: 'primary',
      passfile: '/tmp/pass',
      connectTimeoutSeconds: 10,
      options: '-c statement_timeout=5s',
    });
    // The string wins over the environment.
    expect(parseConnectionString('postgres://s@h/d?sslmode=disable&options=-c%20search_path%3Dx', defaults(env))).toMatchObject({
      user: 's',
      database: 'd',
      sslmode: 'disable',
      options: '-c search_path=x',
    });
    expect(parseConnectionString('postgres://h', defaults())).toMatchObject({
      user: 'cairn',
      database: 'cairn',
      password: undefined,
      sslmode: 'prefer',
      targetSessionAttrs: 'any',
      passfile: '/home/cairn/.pgpass',
      sslcert: '/home/cairn/.postgresql/postgresql.crt',
      sslkey: '/home/cairn/.postgresql/postgresql.key',
      sslrootcert: undefined,
      connectTimeoutSeconds: undefined,
    });
  });

  it('makes require verify the chain when ~/.postgresql/root.crt exists, as libpq does', () => {
    expect(parseConnectionString('postgres://h?sslmode=require', defaults({}, ['/home/cairn/.postgresql/root.crt'])).sslrootcert).toBe(
      '/home/cairn/.postgresql/root.crt',
    );
    expect(parseConnectionString('postgres://h?sslmode=require&sslrootcert=/ca.pem', defaults()).sslrootcert).toBe('/ca.pem');
  });

  it('refuses what libpq refuses, without repeating the string', () => {
    const refused = (text: string) => () => parseConnectionString(text, defaults());
    expect(refused('postgres://h?sslmode=sometimes')).toThrow(ConnectionStringError);
    expect(refused('postgres://h?target_session_attrs=writable')).toThrow('invalid target_session_attrs "writable"');
    expect(refused('postgres://u:secret@h?colour=blue')).toThrow('invalid connection option "colour"');
    expect(refused('postgres://u:secret@h:99999/db')).toThrow('invalid port number: "99999"');
    expect(refused('postgres://u:secret@h:99999/db')).not.toThrow(/secret/);
  });
});

describe('passwordFromFile', () => {
  let directory: string;
  let file: string;
  const lookup = { host: 'db1', port: 5432, database: 'cairn', user: 'cairn' };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'cairn-pgpass-'));
    file = join(directory, 'pgpass');
    await writeFile(file, ['# comment', 'db2:*:*:*:other', 'db1:5432:cairn:cairn:pa\\:ss\\\\word', '*:*:*:*:fallback', ''].join('\n'), { mode: 0o600 });
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it('gives the first matching line, with wildcards and escapes', async () => {
    expect(await passwordFromFile(file, lookup)).toBe('pa:ss\\word');
    expect(await passwordFromFile(file, { ...lookup, host: 'db2' })).toBe('other');
    expect(await passwordFromFile(file, { ...lookup, port: 5433 })).toBe('fallback');
    expect(await passwordFromFile(join(directory, 'missing'), lookup)).toBeUndefined();
  });

  it('ignores a file that others may read, saying why', async () => {
    await chmod(file, 0o644);
    const warnings: string[] = [];
    expect(await passwordFromFile(file, lookup, (message) => warnings.push(message))).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('has group or world access')]);
    await chmod(file, 0o600);
  });
});
