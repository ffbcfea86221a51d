/**
 * Decoding bodies within bounds: YAML aliases counted where they expand, lone surrogates made
 * U+FFFD as Go does, one document only.
 */
import { describe, expect, it } from 'vitest';
import { decodeJson, decodeYaml, maxNestingDepth, nestingDepth } from './bounded-decoding.js';
import { StatusError } from '../status.js';

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

function badRequestOf(decode: () => unknown): string {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status.code).toBe(400);
    return (error as StatusError).status.message ?? '';
  }
  throw new Error('decoded');
}

describe('bounded decoding', () => {
  // Block YAML grows with the square of its depth: 2,000 levels is already more than a body may hold.
  it.each([
    ['flow JSON', (d: number) => decodeJson(nested(d)), 100_000],
    ['flow YAML', (d: number) => decodeYaml(nested(d)), 100_000],
    ['block YAML', (d: number) => decodeYaml(Array.from({ length: d }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1'), 2_000],
    ['compact YAML sequences', (d: number) => decodeYaml('- '.repeat(d) + 'x'), 100_000],
  ])('refuses %s nested past the limit, at any depth, and decodes it at the limit', (_, decode, deepest) => {
    expect(nestingDepth(decode(maxNestingDepth))).toBe(maxNestingDepth);
    for (const depth of [maxNestingDepth + 1, deepest]) expect(badRequestOf(() => decode(depth))).toContain('maximum nesting depth');
  });

  it('counts YAML aliases where they expand, and refuses a billion laughs', () => {
    const half = Math.ceil(maxNestingDepth / 2) + 1;
    expect(badRequestOf(() => decodeYaml(`a: &x ${nested(half)}\nb: ${'['.repeat(half)}*x${']'.repeat(half)}`))).toContain('maximum nesting depth');
    const laughs = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
    ].join('\n');
    expect(badRequestOf(() => decodeYaml(laughs))).toContain('alias');
  });

  it('makes strings well-formed as Go does: a lone surrogate becomes U+FFFD, in keys too', () => {
    expect(decodeJson('{"a\\ud800":["\\udc00x","\\ud83d\\ude00"]}')).toEqual({ 'a\ufffd': ['\ufffdx', '😀'] });
  });

  it('refuses more than one YAML document and malformed input with 400', () => {
    expect(badRequestOf(() => decodeYaml('a: 1\n---\nb: 2'))).toContain('more than one YAML document');
    expect(badRequestOf(() => decodeYaml('a: [b'))).toContain('error converting YAML to JSON');
    expect(badRequestOf(() => decodeJson('{'))).toContain('error decoding JSON body');
  });
});
