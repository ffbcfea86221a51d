/**
 * Parsing `--token-auth-file` as kube's CSV: records, groups, and empty or repeated tokens.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTokenFile, TokenFileAuthenticator } from './token-file.js';

const parse = (text: string) => parseTokenFile(text, 'tokens.csv');

describe('parseTokenFile', () => {
  it('reads kube’s token,user,uid,"groups" records, each user in system:authenticated', () => {
    const { tokens, warnings } = parse('t1,alice,u-1,"devs,ops"\nt2,bob,u-2\nt3,carol,,admins\n');
    expect(Object.fromEntries(tokens)).toEqual({
      t1: { name: 'alice', uid: 'u-1', groups: ['devs', 'ops', 'system:authenticated'] },
      t2: { name: 'bob', uid: 'u-2', groups: ['system:authenticated'] },
      t3: { name: 'carol', groups: ['admins', 'system:authenticated'] },
    });
    expect(warnings).toEqual([]);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['blank lines skipped, CRLF line ends', '\r\nt1,alice,u-1\r\n\r\n\nt2,bob,u-2', { t1: 'alice', t2: 'bob' }],
    ['fields kept as written, spaces and all', ' t1 , alice ,u', { ' t1 ': ' alice ' }],
    ['quoted fields, "" a quote', '"t,1","al""ice",u', { 't,1': 'al"ice' }],
    ['a quoted field spanning lines', '"multi\nline",alice,u\nt2,bob,u', { 'multi\nline': 'alice', t2: 'bob' }],
    ['fields past the fourth ignored', 't1,alice,u,g,extra,more', { t1: 'alice' }],
    ['a # line a record like any other', '#t1,alice,u', { '#t1': 'alice' }],
  ])('%s', (_, text, users) => {
    expect(Object.fromEntries([...parse(text).tokens].map(([token, user]) => [token, user.name]))).toEqual(users);
  });

  it('makes one empty group of an empty fourth field, as kube’s strings.Split does', () => {
    expect(parse('t1,alice,u,').tokens.get('t1')?.groups).toEqual(['', 'system:authenticated']);
  });

  it('skips an empty token and keeps the last of a repeated one, warning of each as kube does', () => {
    const { tokens, warnings } = parse(',nobody,u\nt1,alice,u\nt1,mallory,u\n');
    expect(Object.fromEntries([...tokens].map(([token, user]) => [token, user.name]))).toEqual({ t1: 'mallory' });
    expect(warnings).toEqual([
      "empty token has been found in token file 'tokens.csv', record number '1'",
      "duplicate token has been found in token file 'tokens.csv', record number '3'",
    ]);
  });

  it.each<[string, string, RegExp]>([
    [
      'a record of two fields',
      't1,alice,u\nt2,bob\n',
      /token file 'tokens.csv' must have at least 3 columns \(token, user name, user uid\), found 2 on line 2/,
    ],
    ['a line of spaces', 't1,alice,u\n  \n', /found 1 on line 2/],
    ['a comment', '# tokens\n', /found 1 on line 1/],
    ['a bare quote', 't"1,alice,u', /token file 'tokens.csv': parse error on line 1: bare " in non-quoted field/],
    ['text after a closing quote', '"t1"x,alice,u', /extraneous or missing " in quoted-field/],
    ['an unclosed quote', 't1,alice,"u\n', /extraneous or missing " in quoted-field/],
  ])('fails the whole file on %s', (_, text, error) => {
    expect(() => parse(text)).toThrow(error);
  });
});

describe('TokenFileAuthenticator', () => {
  it('reads a file and knows its tokens only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-tokens-'));
    try {
      await writeFile(join(dir, 'tokens.csv'), 't1,alice,u-1,devs\n');
      const authenticator = await TokenFileAuthenticator.fromFile(join(dir, 'tokens.csv'));
      expect(authenticator.authenticateToken('t1')).toEqual({ name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] });
      expect(authenticator.authenticateToken('t2')).toBeUndefined();
      await expect(TokenFileAuthenticator.fromFile(join(dir, 'missing.csv'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
