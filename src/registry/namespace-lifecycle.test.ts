/**
 * NamespaceLifecycle admission: writes into a namespace the cluster lacks or is terminating
 * are refused.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionAttributes } from './admission.js';
import { NamespaceLifecycle, type NamespacePhase } from './namespace-lifecycle.js';

const object = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'p', namespace: 'ns' } };
const create: AdmissionAttributes = {
  operation: 'CREATE',
  group: 'cairn.dev',
  version: 'v1',
  resource: 'pipelines',
  kind: 'Pipeline',
  namespace: 'ns',
  name: 'p',
  object,
  dryRun: false,
};

/** A lookup over a map of namespaces, counting its calls. */
function cluster(namespaces: Map<string, NamespacePhase>) {
  const calls: string[] = [];
  return { calls, lookup: async (name: string) => (calls.push(name), namespaces.get(name)) };
}

describe('NamespaceLifecycle', () => {
  it('refuses writes into a missing namespace with kube’s NotFound, never remembering the miss', async () => {
    const namespaces = new Map<string, NamespacePhase>();
    const { calls, lookup } = cluster(namespaces);
    const plugin = new NamespaceLifecycle(lookup, 60_000);
    await expect(plugin.admit(create)).rejects.toMatchObject({
      status: { code: 404, reason: 'NotFound', message: 'namespaces "ns" not found', details: { name: 'ns', kind: 'namespaces' } },
    });
    await expect(plugin.admit({ ...create, operation: 'UPDATE', oldObject: object })).rejects.toMatchObject({ code: 404 });
    namespaces.set('ns', 'Active');
    expect(await plugin.admit(create)).toBe(object);
    expect(await plugin.admit(create)).toBe(object);
    expect(calls).toEqual(['ns', 'ns', 'ns']);
  });

  it('refuses creates, not updates, in a terminating namespace, with kube’s Forbidden and cause', async () => {
    const plugin = new NamespaceLifecycle(cluster(new Map([['ns', 'Terminating']])).lookup);
    await expect(plugin.admit(create)).rejects.toMatchObject({
      status: {
        code: 403,
        reason: 'Forbidden',
        message: 'pipelines.cairn.dev "p" is forbidden: unable to create new content in namespace ns because it is being terminated',
        details: {
          name: 'p',
          group: 'cairn.dev',
          kind: 'pipelines',
          causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns is being terminated', field: 'metadata.namespace' }],
        },
      },
    });
    expect(await plugin.admit({ ...create, operation: 'UPDATE', oldObject: object })).toBe(object);
  });

  it('lets deletes and cluster-scoped objects through without asking, and fails with 500 when it cannot ask', async () => {
    const plugin = new NamespaceLifecycle(() => Promise.reject(new Error('connection refused')));
    expect(await plugin.admit({ ...create, namespace: '', resource: 'runnerclasses' })).toBe(object);
    await expect(plugin.admit({ ...create, operation: 'DELETE', object: undefined, oldObject: object })).resolves.toBeUndefined();
    await expect(plugin.admit(create)).rejects.toMatchObject({ code: 500 });
  });

  it('remembers a namespace it found for its TTL', async () => {
    const namespaces = new Map<string, NamespacePhase>([['ns', 'Active']]);
    const { calls, lookup } = cluster(namespaces);
    const plugin = new NamespaceLifecycle(lookup, 30);
    await plugin.admit(create);
    namespaces.set('ns', 'Terminating');
    await plugin.admit(create);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(plugin.admit(create)).rejects.toMatchObject({ code: 403 });
    expect(calls).toHaveLength(2);
  });
});
