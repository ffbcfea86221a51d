// The collector's decisions as kube's garbage collector makes them, from an object's owner references and their owners' states.
import { describe, expect, it } from 'vitest';
import { classifyReferences, decide, unblocked, withoutReferences, type OwnerState } from './decisions.js';

const ref = (uid: string, blockOwnerDeletion?: boolean) => ({ apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name: uid, uid, blockOwnerDeletion });
const classify = (states: Record<string, OwnerState>) =>
  classifyReferences(
    Object.keys(states).map((uid) => ref(uid, true)),
    (r) => states[r.uid],
  );
const facts = { finalizers: [], hasDependents: false, dependentDeletingDependents: false };

describe('classifyReferences', () => {
  it('sorts references by their owners: present and unserved are solid, absent dangling, deleting in foreground waiting', () => {
    const classified = classify({ a: 'present', b: 'unserved', c: 'absent', d: 'deletingDependents' });
    expect(classified.solid.map((r) => r.uid)).toEqual(['a', 'b']);
    expect(classified.dangling.map((r) => r.uid)).toEqual(['c']);
    expect(classified.waitingForDependentsDeletion.map((r) => r.uid)).toEqual(['d']);
  });
});

describe('decide', () => {
  it('keeps an object whose owners all exist, or are of kinds not served', () => {
    expect(decide(classify({ a: 'present', b: 'unserved' }), facts)).toEqual({ action: 'keep' });
  });

  it('removes only the references to owners gone or going while one owner is left', () => {
    expect(decide(classify({ a: 'present', b: 'absent', c: 'deletingDependents' }), facts)).toEqual({ action: 'removeReferences', uids: ['b', 'c'] });
  });

  it('deletes in background an object whose owners are all gone or going, unless its own finalizers say otherwise', () => {
    expect(decide(classify({ a: 'absent', b: 'deletingDependents' }), facts)).toEqual({ action: 'delete', propagationPolicy: 'Background', unblock: [] });
    expect(decide(classify({ a: 'absent' }), { ...facts, finalizers: ['orphan'] })).toMatchObject({ propagationPolicy: 'Orphan' });
    expect(decide(classify({ a: 'absent' }), { ...facts, finalizers: ['foregroundDeletion'] })).toMatchObject({ propagationPolicy: 'Foreground' });
  });

  it('deletes in foreground an object with dependents whose owner waits for it, unblocking the owner when a dependent waits too (a cycle)', () => {
    expect(decide(classify({ a: 'deletingDependents' }), { ...facts, hasDependents: true })).toEqual({
      action: 'delete',
      propagationPolicy: 'Foreground',
      unblock: [],
    });
    expect(decide(classify({ a: 'deletingDependents' }), { ...facts, hasDependents: true, dependentDeletingDependents: true })).toEqual({
      action: 'delete',
      propagationPolicy: 'Foreground',
      unblock: ['a'],
    });
    // A dangling owner alone does not wait for anything: no foreground.
    expect(decide(classify({ a: 'absent' }), { ...facts, hasDependents: true })).toMatchObject({ propagationPolicy: 'Background' });
  });
});

describe('reference edits', () => {
  it('drops references by uid, or clears their blockOwnerDeletion, leaving the others as they are', () => {
    const refs = [ref('a', true), ref('b', true)];
    expect(withoutReferences(refs, ['a'])).toEqual([ref('b', true)]);
    expect(unblocked(refs, ['b'])).toEqual([ref('a', true), { ...ref('b'), blockOwnerDeletion: false }]);
  });
});
