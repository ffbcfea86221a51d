/**
 * The path elements of fieldsV1 keys: reading kube's, their order, and printing paths as kube
 * does in conflicts.
 */
import { describe, expect, it } from 'vitest';
import { canonicalElement, compareElements, fieldElement, fieldPath, formatPath, indexElement, keyElement, valueElement } from './field-path.js';

describe('path elements', () => {
  it.each([
    [fieldElement('spec'), 'f:spec'],
    [keyElement({ name: 'fetch' }), 'k:{"name":"fetch"}'],
    // key fields sorted by name, as kube writes them
    [keyElement({ protocol: 'TCP', containerPort: 80 }), 'k:{"containerPort":80,"protocol":"TCP"}'],
    [valueElement('example.com/guard'), 'v:"example.com/guard"'],
    [valueElement(3), 'v:3'],
    [valueElement(true), 'v:true'],
    [indexElement(2), 'i:2'],
    // Go's encoding/json escapes HTML characters
    [valueElement('a<b>&c'), 'v:"a\\u003cb\\u003e\\u0026c"'],
  ])('serializes %s', (element, expected) => {
    expect(element).toBe(expected);
  });

  it('reads kube-written elements into the same canonical form', () => {
    expect(canonicalElement('k:{"protocol":"TCP","containerPort":80}')).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(canonicalElement('v:"a\\u003cb"')).toBe(valueElement('a<b'));
    expect(canonicalElement('f:metadata')).toBe('f:metadata');
    expect(canonicalElement('i:4')).toBe('i:4');
  });

  it('skips element kinds it does not know, and refuses malformed ones', () => {
    expect(canonicalElement('r:aab')).toBeUndefined();
    expect(() => canonicalElement('f')).toThrow();
    expect(() => canonicalElement('fspec')).toThrow();
    expect(() => canonicalElement('k:{"name":')).toThrow();
    expect(() => canonicalElement('k:"name"')).toThrow();
    expect(() => canonicalElement('i:x')).toThrow();
  });

  it('orders fields, then keys, then values (numbers, strings, booleans), then indexes', () => {
    const elements = ['i:1', 'v:true', 'v:"aa"', 'v:2', 'k:{"name":"second"}', 'k:{"name":"first"}', 'f:b', 'f:a', 'v:10', 'i:10', 'i:2'];
    expect([...elements].sort(compareElements)).toEqual([
      'f:a',
      'f:b',
      'k:{"name":"first"}',
      'k:{"name":"second"}',
      'v:2',
      'v:10',
      'v:"aa"',
      'v:true',
      'i:1',
      'i:2',
      'i:10',
    ]);
  });

  it('prints paths as kube does in conflicts', () => {
    expect(formatPath(fieldPath('spec', 'replicas'))).toBe('.spec.replicas');
    expect(formatPath([...fieldPath('spec', 'steps'), keyElement({ name: 'fetch' }), fieldElement('image')])).toBe('.spec.steps[name="fetch"].image');
    expect(formatPath([...fieldPath('metadata', 'finalizers'), valueElement('a')])).toBe('.metadata.finalizers[="a"]');
    expect(formatPath([keyElement({ port: 443, protocol: 'tcp' })])).toBe('[port=443,protocol="tcp"]');
  });
});
