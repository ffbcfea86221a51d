/**
 * Field selectors: kube's syntax, what kube rejects, matching, escaping and round trips.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFieldValue, formatFieldSelector, matchesFields, parseFieldSelector, type FieldSelector } from './field-selector.js';
import { SelectorParseError } from './selector-parse-error.js';

// Cases ported from k8s.io/apimachinery/pkg/fields/selector_test.go, plus our own.

describe('parseFieldSelector accepts kube syntax', () => {
  it.each<[string, FieldSelector]>([
    ['', []],
    [',', []],
    ['a=avalue', [{ field: 'a', operator: '=', value: 'avalue' }]],
    [
      'a=avalue,b==bvalue,c!=cvalue',
      [
        { field: 'a', operator: '=', value: 'avalue' },
        { field: 'b', operator: '=', value: 'bvalue' },
        { field: 'c', operator: '!=', value: 'cvalue' },
      ],
    ],
    ['a=a,', [{ field: 'a', operator: '=', value: 'a' }]],
    [',a=a', [{ field: 'a', operator: '=', value: 'a' }]],
    // terms are ordered by their raw text, and '2' sorts before '='
    [
      'k=\\,,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: ',' },
      ],
    ],
    [
      'k=\\\\,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: '\\' },
      ],
    ],
    [
      'k=\\\\\\,,k2=v2',
      [
        { field: 'k2', operator: '=', value: 'v2' },
        { field: 'k', operator: '=', value: '\\,' },
      ],
    ],
    ['k=\\=', [{ field: 'k', operator: '=', value: '=' }]],
    ['x=a||y\\=b', [{ field: 'x', operator: '=', value: 'a||y=b' }]],
    ['x=a\\=\\=b', [{ field: 'x', operator: '=', value: 'a==b' }]],
    [
      '함=수,목=록',
      [
        { field: '목', operator: '=', value: '록' },
        { field: '함', operator: '=', value: '수' },
      ],
    ],
    ['x=', [{ field: 'x', operator: '=', value: '' }]],
    ['x!=', [{ field: 'x', operator: '!=', value: '' }]],
    ['=x', [{ field: '', operator: '=', value: 'x' }]],
    ['a = b', [{ field: 'a ', operator: '=', value: ' b' }]],
  ])('%j', (input, expected) => {
    expect(parseFieldSelector(input)).toEqual(expected);
  });

  it('orders terms by their text, as kube sorts them', () => {
    expect(formatFieldSelector(parseFieldSelector('x=a,a=x'))).toBe('a=x,x=a');
    expect(formatFieldSelector(parseFieldSelector('b!=1,b==0'))).toBe('b!=1,b=0');
  });

  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b', 'k=\\\\\\,'])('%j is its own canonical form', (input) => {
    expect(formatFieldSelector(parseFieldSelector(input))).toBe(input);
  });
});

describe('parseFieldSelector rejects what kube rejects', () => {
  it.each<[string, string]>([
    ['x=a||y=b', "invalid field selector: unescaped character in value: '='"],
    ['x==a==b', "invalid field selector: unescaped character in value: '='"],
    ['a!==b', "invalid field selector: unescaped character in value: '='"],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x in (a,b,c)', "invalid selector: 'x in (a,b,c)'; can't understand 'b'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\a\\b\\', 'invalid field selector: invalid escape sequence: \\a'],
    ['a\\=b=c', "invalid field selector: unescaped character in value: '='"],
  ])('%j', (input, message) => {
    const attempt = (): unknown => parseFieldSelector(input);
    expect(attempt).toThrow(SelectorParseError);
    expect(attempt).toThrow(message);
  });
});

describe('matchesFields', () => {
  const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
  it.each<[string, Record<string, string>, boolean]>([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['foo=bar', fieldset, true],
    ['baz=blah', fieldset, true],
    ['foo=bar,baz=blah', fieldset, true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset, true],
    ['foo=blah', fieldset, false],
    ['baz=bar', fieldset, false],
    ['foo=bar,foobar=bar,baz=blah', fieldset, false],
    // an absent field is the empty string
    ['x=', {}, true],
    ['x!=', {}, false],
    ['x=', { x: '' }, true],
    ['x=a', {}, false],
    ['x!=a', {}, true],
    ['toString=', {}, true],
    ['constructor!=', {}, false],
  ])('%j on %j → %s', (selector, fields, expected) => {
    expect(matchesFields(parseFieldSelector(selector), fields)).toBe(expected);
  });
});

describe('escapeFieldValue', () => {
  it.each([
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ])('%j → %j', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
  });

  it('round-trips any value through a parsed selector', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(parseFieldSelector(`f=${escapeFieldValue(value)}`)).toEqual([{ field: 'f', operator: '=', value }]);
      }),
    );
  });
});
