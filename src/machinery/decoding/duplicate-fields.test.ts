/**
 * Finding duplicate fields in JSON and YAML bodies, with kube-style paths, as kube's strict
 * decoding reports them.
 */
import { describe, expect, it } from 'vitest';
import { duplicateFields } from './duplicate-fields.js';

describe('duplicateFields', () => {
  it('finds repeated keys in JSON at any depth, with kube-style paths', () => {
    const raw = '{"spec":{"replicas":1,"replicas":2,"steps":[{"name":"a","name":"b"}]},"kind":"Pipeline","kind":"Pipeline"}';
    expect(duplicateFields(raw)).toEqual(['spec.replicas', 'spec.steps[0].name', 'kind']);
  });

  it('finds repeated keys in YAML', () => {
    expect(duplicateFields('metadata:\n  name: a\n  name: b\n')).toEqual(['metadata.name']);
  });

  it('finds none in a clean document', () => {
    expect(duplicateFields('{"a":{"b":[1,2]},"c":{"b":1}}')).toEqual([]);
  });

  it('skips the second parse only when the decoded value holds every key the text spells', () => {
    const clean = '{"a": {"b": [{"c": 1}, "d\\":x"]}, "e:": "f"}';
    expect(duplicateFields(clean, JSON.parse(clean))).toEqual([]);
    const repeated = '{"spec": {"replicas": 1, "replicas": 2}}';
    expect(duplicateFields(repeated, JSON.parse(repeated))).toEqual(['spec.replicas']);
  });
});
