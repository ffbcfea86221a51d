/**
 * libpq's password file (`~/.pgpass`, PGPASSFILE, `passfile`): the password of the first
 * `hostname:port:database:username:password` line that matches the server a connection
 * tries. node-postgres's own reader (the pgpass package) reads only PGPASSFILE or
 * ~/.pgpass and knows one host, so the file named by `passfile` is read here.
 */
import { readFile, stat } from 'node:fs/promises';
import type { ServerAddress } from './connection-string.js';

/** What a line is matched against. */
export interface PasswordLookup extends ServerAddress {
  readonly database: string;
  readonly user: string;
}

/**
 * The password for `lookup` in the file at `path`, or undefined when it has none, does
 * not exist, or may be read by others: libpq then ignores it, saying so through `warn`.
 */
export async function passwordFromFile(path: string, lookup: PasswordLookup, warn: (message: string) => void = () => undefined): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  if (!info.isFile()) {
    warn(`password file "${path}" is not a plain file`);
    return undefined;
  }
  // libpq's rule on Unix: group or world access makes the file be ignored.
  if (info.mode & 0o077) {
    warn(`password file "${path}" has group or world access; permissions should be u=rw (0600) or less`);
    return undefined;
  }
  const text = await readFile(path, 'utf8');
  // A Unix socket directory matches "localhost", as in libpq.
  const host = lookup.host.startsWith('/') ? 'localhost' : lookup.host;
  const wanted = [host, String(lookup.port), lookup.database, lookup.user];
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = splitLine(line);
    if (fields.length < 5) continue;
    if (wanted.every((value, index) => fields[index] === '*' || fields[index] === value)) return fields[4];
  }
  return undefined;
}

/** Splits on unescaped colons; `\:` and `\\` stand for themselves. */
function splitLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '\\' && i + 1 < line.length) field += line[++i];
    else if (char === ':' && fields.length < 4) {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}
