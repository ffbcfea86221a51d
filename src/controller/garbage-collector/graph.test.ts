import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import { Graph, nodeOf } from './graph.js';
import { ownerLocation } from './owners.js';
import type { ServedResource } from './metadata-client.js';

const pipelines: ServedResource = { group: 'cairn.dev', version: 'v1', resource: 'pipelines', kind: 'Pipeline', namespaced: true };
const runnerClasses: ServedResource = { group: 'cairn.dev', version: 'v1', resource: 'runnerclasses', kind: 'RunnerClass', namespaced: false };
const served = [pipelines, runnerClasses];

const runnerClass = (uid: string, meta: ObjectMeta = {}) => nodeOf(runnerClasses, { name: uid, uid, ...meta });
const pipeline = (uid: string, meta: ObjectMeta = {}) => nodeOf(pipelines, { name: uid, namespace: 'default', uid, ...meta });
const ownedBy = (uid: string, kind = 'RunnerClass', blockOwnerDeletion?: boolean) => ({ apiVersion: 'cairn.dev/v1', kind, name: uid, uid, blockOwnerDeletion });
const deleting = (finalizer: string): ObjectMeta => ({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [finalizer] });

describe('Graph', () => {
  it('links dependents to owners, observed or not, and follows changed references', () => {
    const graph = new Graph();
    graph.observe(pipeline('p', { ownerReferences: [ownedBy('rc', 'RunnerClass', true)] }));
    expect(graph.dependents('rc').map((n) => n.uid)).toEqual(['p']);
    expect(graph.blockingDependents('rc').map((n) => n.uid)).toEqual(['p']);
    graph.observe(pipeline('p', { ownerReferences: [ownedBy('rc')] }));
    expect(graph.blockingDependents('rc')).toEqual([]);
    graph.observe(pipeline('p'));
    expect(graph.dependents('rc')).toEqual([]);
    expect(graph.size).toBe(1);
  });

  it('sends a dependent to attemptToDelete when its owner is not observed, not where the reference reaches, or deleting in foreground', () => {
    const graph = new Graph();
    expect(graph.observe(pipeline('p', { ownerReferences: [ownedBy('rc')] })).attemptToDelete).toEqual(['p']);
    graph.observe(runnerClass('rc'));
    expect(graph.observe(pipeline('p', { ownerReferences: [ownedBy('rc')] })).attemptToDelete).toEqual([]);
    // A namespaced owner in another namespace.
    graph.observe(nodeOf(pipelines, { name: 'owner', namespace: 'other', uid: 'owner' }));
    expect(graph.observe(pipeline('q', { ownerReferences: [ownedBy('owner', 'Pipeline')] })).attemptToDelete).toEqual(['q']);
    // A reference whose name or kind is not the observed owner's.
    expect(graph.observe(pipeline('r', { ownerReferences: [{ ...ownedBy('rc'), name: 'renamed' }] })).attemptToDelete).toEqual(['r']);
  });

  it('starts a foreground deletion: the owner and every dependent to attemptToDelete, once', () => {
    const graph = new Graph();
    graph.observe(runnerClass('rc'));
    graph.observe(pipeline('a', { ownerReferences: [ownedBy('rc')] }));
    graph.observe(pipeline('b', { ownerReferences: [ownedBy('rc', 'RunnerClass', true)] }));
    expect(graph.observe(runnerClass('rc', deleting('foregroundDeletion'))).attemptToDelete).toEqual(['rc', 'a', 'b']);
    expect(graph.observe(runnerClass('rc', deleting('foregroundDeletion'))).attemptToDelete).toEqual(['rc']);
    // A dependent changing its references, or going, may be what the owner waits for.
    expect(graph.observe(pipeline('b', { ownerReferences: [ownedBy('rc')] })).attemptToDelete).toEqual(['b', 'rc']);
    expect(graph.remove('a').attemptToDelete).toEqual(['rc']);
  });

  it('sends an owner deleted with the orphan finalizer to attemptToOrphan, and the dependents of a removed owner to attemptToDelete', () => {
    const graph = new Graph();
    graph.observe(runnerClass('rc'));
    graph.observe(pipeline('a', { ownerReferences: [ownedBy('rc')] }));
    expect(graph.observe(runnerClass('rc', deleting('orphan'))).attemptToOrphan).toEqual(['rc']);
    expect(graph.remove('rc')).toEqual({ attemptToDelete: ['a'], attemptToOrphan: [] });
    expect(graph.node('rc')).toBeUndefined();
    expect(graph.remove('rc')).toEqual({ attemptToDelete: [], attemptToOrphan: [] });
  });
});

describe('ownerLocation', () => {
  const dependent = { resource: pipelines, namespace: 'team-a', name: 'p' };
  it('finds an owner by group and kind in any version, a namespaced one in the dependent’s namespace', () => {
    expect(ownerLocation(dependent, { ...ownedBy('x'), apiVersion: 'cairn.dev/v1alpha1' }, served)).toEqual({
      resource: runnerClasses,
      namespace: undefined,
      name: 'x',
    });
    expect(ownerLocation(dependent, ownedBy('y', 'Pipeline'), served)).toEqual({ resource: pipelines, namespace: 'team-a', name: 'y' });
  });

  it('says unserved for a kind the server does not serve, and absent for a namespaced owner of a cluster-scoped dependent', () => {
    expect(ownerLocation(dependent, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'd' }, served)).toBe('unserved');
    expect(ownerLocation({ resource: runnerClasses, name: 'rc' }, ownedBy('p', 'Pipeline'), served)).toBe('absent');
  });
});
