/**
 * Static bearer tokens from kube-apiserver's `--token-auth-file`
 * (`k8s.io/apiserver/pkg/authentication/token/tokenfile`): a CSV file, one token a
 * record, `token,user name,user uid[,"group1,group2"]`. Read as Go's `encoding/csv`
 * reads it: RFC 4180 quoting, blank lines skipped, no comments (a `#` line is a record
 * like any other), fields kept as written. A record of fewer than three fields fails
 * the whole file; an empty token is skipped and a repeated one replaces the earlier,
 * each with a warning.
 */
import { readFile } from 'node:fs/promises';
import type { TokenAuthenticator } from './bearer-token-authenticator.js';
import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** What a token file holds: the users by token, and what kube would have logged as warnings. */
export interface TokenFileContents {
  readonly tokens: ReadonlyMap<string, UserInfo>;
  readonly warnings: readonly string[];
}

/** A CSV record and the line it starts on. */
interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

/** Go `encoding/csv` with `FieldsPerRecord = -1`: records of any length; throws a ParseError's message on bad quoting. */
function* csvRecords(text: string): Generator<CsvRecord> {
  const input = text.replace(/\r\n/g, '\n');
  let i = 0;
  let line = 1;
  while (i < input.length) {
    if (input[i] === '\n') {
      i++;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (input[i] === '"') {
        i++;
        for (;;) {
          if (i >= input.length) throw new Error(`parse error on line ${start}: extraneous or missing " in quoted-field`);
          const c = input[i];
          if (c === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            if (i < input.length && input[i] !== ',' && input[i] !== '\n')
              throw new Error(`parse error on line ${line}: extraneous or missing " in quoted-field`);
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
      } else {
        while (i < input.length && input[i] !== ',' && input[i] !== '\n') {
          if (input[i] === '"') throw new Error(`parse error on line ${line}: bare " in non-quoted field`);
          field += input[i++];
        }
      }
      fields.push(field);
      if (i >= input.length) break;
      if (input[i++] === '\n') {
        line++;
        break;
      }
    }
    yield { line: start, fields };
  }
}

/** Parses a token file's text; throws naming the file and the problem. */
export function parseTokenFile(text: string, path: string): TokenFileContents {
  const tokens = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNumber = 0;
  try {
    for (const { line, fields } of csvRecords(text)) {
      if (fields.length < 3)
        throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`);
      recordNumber++;
      const [token, name, uid, groups] = fields;
      if (token === '') {
        warnings.push(`empty token has been found in token file '${path}', record number '${recordNumber}'`);
        continue;
      }
      if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNumber}'`);
      // As kube: the fourth field split on commas, an empty one making one empty group.
      const user: UserInfo = { name, ...(uid ? { uid } : {}), groups: withAuthenticatedGroup(name, groups === undefined ? [] : groups.split(',')) };
      tokens.set(token, Object.freeze(user));
    }
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.startsWith('token file') ? message : `token file '${path}': ${message}`, { cause: error });
  }
  return { tokens, warnings };
}

/** The users of a `--token-auth-file`. */
export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly #tokens: ReadonlyMap<string, UserInfo>;
  readonly warnings: readonly string[];

  constructor(contents: TokenFileContents) {
    this.#tokens = contents.tokens;
    this.warnings = contents.warnings;
  }

  /** Reads and parses `path`; throws when it cannot be read or parsed. */
  static async fromFile(path: string): Promise<TokenFileAuthenticator> {
    return new TokenFileAuthenticator(parseTokenFile(await readFile(path, 'utf8'), path));
  }

  authenticateToken(token: string): UserInfo | undefined {
    return this.#tokens.get(token);
  }
}
