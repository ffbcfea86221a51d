/**
 * Field sets: their fieldsV1 encoding, round-tripped, and union, intersection and difference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldElement, fieldPath, indexElement, keyElement, valueElement, type Path } from './field-path.js';
import { FieldSet } from './field-set.js';

// fieldsV1 as kube-apiserver and structured-merge-diff write them, byte for byte.
const kubeWritten = [
  // kubectl create deployment, as kube-apiserver 1.31 answered it
  '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
  // a StatefulSet: a list-map with two key fields inside a list-map item
  '{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"iab\\"}":{".":{},"f:image":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}}}}}}}}',
  // a custom resource created by an Update: the added spec is a member itself
  '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:build":{},"f:kamelet":{},"f:profile":{},"f:resources":{}}}',
  // structured-merge-diff's golden data (TestSerializeV1GoldenData)
  '{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}',
  '{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}}}',
];

const element = fc.oneof(
  fc.string({ maxLength: 4 }).map(fieldElement),
  fc.record({ name: fc.string({ maxLength: 3 }), port: fc.integer({ min: 0, max: 9 }) }).map(keyElement),
  fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean()).map(valueElement),
  fc.nat(5).map(indexElement),
);
const paths = fc.array(fc.array(element, { minLength: 1, maxLength: 4 }), { maxLength: 12 });

describe('FieldSet fieldsV1', () => {
  it.each(kubeWritten.map((json, i) => [i, json]))('round-trips kube-written example %i byte for byte', (_, json) => {
    expect(JSON.stringify(FieldSet.fromFieldsV1(JSON.parse(json)).toFieldsV1())).toBe(json);
  });

  it('reads members and the paths under them', () => {
    const set = FieldSet.fromFieldsV1(JSON.parse(kubeWritten[1]));
    const container = [...fieldPath('spec', 'template', 'spec', 'containers'), keyElement({ name: 'iab' })];
    expect(set.has(container)).toBe(true);
    expect(set.has([...container, fieldElement('image')])).toBe(true);
    expect(set.has([...container, fieldElement('ports')])).toBe(true);
    expect(set.has([...container, fieldElement('resources')])).toBe(false);
    expect(set.has(fieldPath('spec'))).toBe(false);
    expect(set.has(fieldPath('spec', 'replicas'))).toBe(true);
  });

  it('writes the example of the brief', () => {
    const step = [...fieldPath('spec', 'steps'), keyElement({ name: 'fetch' })];
    const set = FieldSet.of([fieldPath('spec', 'replicas'), step, [...step, fieldElement('name')]]);
    expect(set.toFieldsV1()).toEqual({ 'f:spec': { 'f:replicas': {}, 'f:steps': { 'k:{"name":"fetch"}': { '.': {}, 'f:name': {} } } } });
  });

  it('drops element kinds it does not know and refuses malformed documents', () => {
    expect(FieldSet.fromFieldsV1({ 'f:aaa': {}, 'r:aab': {} }).toFieldsV1()).toEqual({ 'f:aaa': {} });
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 'x' })).toThrow();
    expect(() => FieldSet.fromFieldsV1({ 'k:{': {} })).toThrow();
  });

  it('round-trips any set', () => {
    fc.assert(
      fc.property(paths, (members) => {
        const set = FieldSet.of(members);
        const again = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(set.toFieldsV1())));
        expect(again.paths()).toEqual(set.paths());
        for (const path of members) expect(again.has(path)).toBe(true);
      }),
    );
  });
});

describe('FieldSet operations', () => {
  const p = (...names: string[]): Path => fieldPath(...names);
  const a = FieldSet.of([p('spec', 'replicas'), p('spec', 'paused'), p('metadata', 'labels', 'team')]);
  const b = FieldSet.of([p('spec', 'replicas'), p('spec', 'runnerClassName'), p('spec')]);

  it('unions, intersects and subtracts member by member', () => {
    // structured-merge-diff's order: the members of a level before the levels under it
    expect(a.union(b).paths()).toEqual([p('spec'), p('metadata', 'labels', 'team'), p('spec', 'paused'), p('spec', 'replicas'), p('spec', 'runnerClassName')]);
    expect(a.intersection(b).paths()).toEqual([p('spec', 'replicas')]);
    expect(a.difference(b).paths()).toEqual([p('metadata', 'labels', 'team'), p('spec', 'paused')]);
    // `.spec` being a member of b takes nothing under it from a
    expect(b.difference(a).paths()).toEqual([p('spec'), p('spec', 'runnerClassName')]);
  });

  it('subtracts recursively what is under a member', () => {
    expect(a.recursiveDifference(FieldSet.of([p('spec')])).paths()).toEqual([p('metadata', 'labels', 'team')]);
  });

  it('agrees with plain sets of paths', () => {
    const keys = (set: FieldSet) =>
      set
        .paths()
        .map((path) => JSON.stringify(path))
        .sort();
    const plain = (members: Path[]) => [...new Set(members.map((path) => JSON.stringify(path)))];
    fc.assert(
      fc.property(paths, paths, (x, y) => {
        const [left, right] = [plain(x), plain(y)];
        const [a, b] = [FieldSet.of(x), FieldSet.of(y)];
        expect(keys(a.union(b))).toEqual([...new Set([...left, ...right])].sort());
        expect(keys(a.intersection(b))).toEqual(left.filter((p) => right.includes(p)).sort());
        expect(keys(a.difference(b))).toEqual(left.filter((p) => !right.includes(p)).sort());
      }),
    );
  });

  it('is empty when nothing is left', () => {
    expect(a.difference(a).isEmpty).toBe(true);
    expect(a.difference(a).toFieldsV1()).toEqual({});
    expect(FieldSet.of([[]]).isEmpty).toBe(true);
  });

  it('answers for the paths under an element', () => {
    expect(a.child('f:spec').paths()).toEqual([p('paused'), p('replicas')]);
    expect(a.touches('f:spec')).toBe(true);
    expect(b.touches('f:metadata')).toBe(false);
  });
});
