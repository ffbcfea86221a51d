/**
 * JSON written as Go marshals a map: keys sorted at every depth, HTML characters escaped.
 */
import { describe, expect, it } from 'vitest';
import { goFormat, sortedGoJson } from './go-text.js';

describe('Go text', () => {
  it('writes JSON as Go marshals a map: keys sorted at every depth, HTML characters escaped', () => {
    expect(sortedGoJson({ b: [{ y: 1, x: 2 }], a: '<&>' })).toBe('{"a":"\\u003c\\u0026\\u003e","b":[{"x":2,"y":1}]}');
  });

  it.each<[unknown, string]>([
    [{ spec: { replicas: 2, bogus: 'x' } }, 'map[spec:map[bogus:x replicas:2]]'],
    [[1, 'a', null, true], '[1 a <nil> true]'],
    [1.5, '1.5'],
    [0.00001, '1e-05'],
    [1234567.5, '1.2345675e+06'],
    [123456.5, '123456.5'],
    [{}, 'map[]'],
  ])('prints %j as Go’s %%+v does: %s', (value, printed) => {
    expect(goFormat(value)).toBe(printed);
  });
});
