/**
 * Label selectors: kube's grammar, its rejections with kube's messages, matching and
 * formatting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLabelSelector, matchesLabels, parseLabelSelector, type LabelRequirement, type LabelSelector } from './label-selector.js';
import { SelectorParseError } from './selector-parse-error.js';

// Cases ported from k8s.io/apimachinery/pkg/labels/selector_test.go, plus our own.

describe('parseLabelSelector accepts kube syntax', () => {
  it.each<[string, string]>([
    // TestSelectorParse: the canonical form is the input without spaces
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    // TestSetSelectorParser
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', 'this-is-another-dns.domain.com/key-with-dash in (so,what)'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
    ['x in (abc,def)', 'x in (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin (abc,def),bar,z in (),w', 'bar,w,x notin (abc,def),z in ()'],
    ['x,y in (a)', 'x,y in (a)'],
    ['x=a', 'x=a'],
    ['x>1', 'x>1'],
    ['x<7', 'x<7'],
    ['x=a,y!=b', 'x=a,y!=b'],
    ['x=a,y!=b,z in (h,i,j)', 'x=a,y!=b,z in (h,i,j)'],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['a ', 'a'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    // keywords are identifiers where a key or value is expected
    ['notin=in', 'notin=in'],
    ['in in (notin)', 'in in (notin)'],
    // TestDeterministicParse and set semantics
    ['x=a,a=x', 'a=x,x=a'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x==y', 'x==y'],
    ['1234 in (bar)', '1234 in (bar)'],
    ['example.com/MyName', 'example.com/MyName'],
    [`${'a'.repeat(253)}/${'b'.repeat(63)}=${'c'.repeat(63)}`, `${'a'.repeat(253)}/${'b'.repeat(63)}=${'c'.repeat(63)}`],
  ])('%j → %j', (input, canonical) => {
    expect(formatLabelSelector(parseLabelSelector(input))).toBe(canonical);
  });

  it('yields requirements sorted by key, with sorted unique values', () => {
    expect(parseLabelSelector('z notin (b,a,b), !y, x, w>3, v==1')).toEqual([
      { key: 'v', operator: '==', values: ['1'] },
      { key: 'w', operator: 'gt', values: ['3'] },
      { key: 'x', operator: 'exists', values: [] },
      { key: 'y', operator: '!', values: [] },
      { key: 'z', operator: 'notin', values: ['a', 'b'] },
    ]);
  });
});

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " +
  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector rejects what kube rejects, with kube messages', () => {
  it.each<[string, string]>([
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_RULE}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>99999999999999999999', 'the value must be an integer'],
    ['x,y,', "found '', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['a in x', "unable to parse requirement: found 'x' expected: '('"],
    ['a in (x=)', "unable to parse requirement: found '=', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    [
      'a/b/c',
      `unable to parse requirement: key: Invalid value: "a/b/c": a qualified name ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    ['/a', 'unable to parse requirement: key: Invalid value: "/a": prefix part must be non-empty'],
    ['a/', `unable to parse requirement: key: Invalid value: "a/": name part must be non-empty; name part ${NAME_RULE}`],
    ['-a', `unable to parse requirement: key: Invalid value: "-a": name part ${NAME_RULE}`],
    ['Example.com/a', 'prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'],
    [`${'a'.repeat(254)}/b`, 'prefix part must be no more than 253 characters'],
    ['a'.repeat(64), 'name part must be no more than 63 characters'],
    [`x=${'a'.repeat(64)}`, `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
    ['x in (a,-b)', `unable to parse requirement: values[0][x]: Invalid value: "-b": ${VALUE_RULE}`],
    ['x in (-a,b_)', `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${VALUE_RULE}, values[1][x]: Invalid value: "b_": ${VALUE_RULE}]`],
    ['é=a', 'unable to parse requirement: key: Invalid value: "é"'],
  ])('%j', (input, message) => {
    const attempt = (): unknown => parseLabelSelector(input);
    expect(attempt).toThrow(SelectorParseError);
    expect(attempt).toThrow(message);
  });

  it('carries the selector text', () => {
    try {
      parseLabelSelector('a b');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SelectorParseError);
      expect((error as SelectorParseError).selector).toBe('a b');
    }
  });
});

describe('matchesLabels', () => {
  const set = { foo: 'bar', baz: 'blah' };
  it.each<[string, Record<string, string> | undefined, boolean]>([
    // TestSelectorMatches
    ['', { x: 'y' }, true],
    ['', undefined, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=z', undefined, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', set, true],
    ['baz=blah', set, true],
    ['foo=bar,baz=blah', set, true],
    ['foo=blah', set, false],
    ['baz=bar', set, false],
    ['foo=bar,foobar=bar,baz=blah', set, false],
    // TestRequirementSelectorMatching
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['z>1', { z: '2' }, true],
    ['z>1', { z: 'v2' }, false],
    // absent keys, empty values and integers
    ['x!=y', {}, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'b' }, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x!=', { x: '' }, false],
    ['x in (,a)', { x: '' }, true],
    ['x', { x: '' }, true],
    ['x>1', {}, false],
    ['x<1', {}, false],
    ['x>1', { x: '+2' }, true],
    ['x<1', { x: '-5' }, true],
    ['x>1', { x: '9223372036854775807' }, true],
    ['x>1', { x: '9223372036854775808' }, false],
    ['x<1', { x: '-9223372036854775808' }, true],
    ['x<1', { x: '-9223372036854775809' }, false],
    ['x>1', { x: '1.5' }, false],
    ['x>1', { x: '' }, false],
    ['x>01', { x: '002' }, true],
    ['x>1', { x: ' 2' }, false],
    ['toString', {}, false],
    ['!constructor', {}, true],
  ])('%j on %j → %s', (selector, labels, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });
});

/** Label keys and values drawn from a small alphabet so that generated selectors hit and miss. */
const name = fc.constantFrom('a', 'b', 'app', 'x.y', 'k8s.io/app', '1');
const value = fc.constantFrom('', 'a', 'b', '1', '10', 'web', 'x_y');
const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({ key: name, operator: fc.constantFrom('=' as const, '==' as const, '!=' as const), values: value.map((v) => [v]) }),
  fc.record({
    key: name,
    operator: fc.constantFrom('in' as const, 'notin' as const),
    values: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }).map((vs) => [...vs].sort()),
  }),
  fc.record({ key: name, operator: fc.constantFrom('exists' as const, '!' as const), values: fc.constant([]) }),
  fc.record({ key: name, operator: fc.constantFrom('gt' as const, 'lt' as const), values: fc.constantFrom('0', '1', '10').map((v) => [v]) }),
);
const selector: fc.Arbitrary<LabelSelector> = fc
  .array(requirement, { maxLength: 4 })
  .map((rs) => [...rs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));

describe('formatLabelSelector', () => {
  it('round-trips through parseLabelSelector', () => {
    fc.assert(
      fc.property(selector, (s) => {
        expect(parseLabelSelector(formatLabelSelector(s))).toEqual(s);
      }),
    );
  });
});
