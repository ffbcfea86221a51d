/**
 * cairn.dev's admission rules, as a validating admission plugin of kube-apiserver
 * enforces its own: a Pipeline names an existing RunnerClass and stays within its
 * maxReplicas, on every write verb and version (and through /scale), refused with 403
 * Forbidden naming the field in the request's version; a Pipeline being deleted passes.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

const ns = 'admission';
const v1 = `/apis/cairn.dev/v1/namespaces/${ns}/pipelines`;
const v1alpha1 = `/apis/cairn.dev/v1alpha1/namespaces/${ns}/pipelines`;
const runnerClasses = '/apis/cairn.dev/v1/runnerclasses';
const merge = { 'Content-Type': 'application/merge-patch+json' };
const apply = { 'Content-Type': 'application/apply-patch+yaml' };

/** A v1alpha1 Pipeline, with that version's field names. */
function alphaPipeline(name: string, runnerClass: string, parallelism: number) {
  return { apiVersion: 'cairn.dev/v1alpha1', kind: 'Pipeline', metadata: { name }, spec: { runnerClass, parallelism, steps: [{ name: 'a', run: 'true' }] } };
}

/** The Status kube-apiserver answers when an admission plugin refuses (`admission.NewForbidden`). */
function forbidden(name: string, why: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `pipelines.cairn.dev "${name}" is forbidden: ${why}`,
    reason: 'Forbidden',
    details: { name, group: 'cairn.dev', kind: 'pipelines' },
    code: 403,
  };
}

const overSmall = (n: number) => `Invalid value: ${n}: must be less than or equal to 2, the maxReplicas of RunnerClass "small"`;

describe('cairn.dev admission', () => {
  const server = inProcessApp([cairnGroup]);
  const request = (...args: Parameters<ReturnType<typeof server>['request']>) => server().request(...args);

  it('seeds the standard RunnerClass at startup, which Pipelines may name', async () => {
    const standard = await request('GET', `${runnerClasses}/standard`);
    expect(standard.status).toBe(200);
    expect(standard.json.spec).toEqual({ image: 'alpine:3.20' });
    expect((await request('POST', v1, { body: pipeline('uses-standard') })).status).toBe(201);
  });

  it('refuses a Pipeline naming no existing RunnerClass, in the request version’s field, and stores nothing', async () => {
    const created = await request('POST', v1, { body: pipeline('no-class', { runnerClassName: 'gpu' }) });
    expect(created.status).toBe(403);
    expect(created.json).toEqual(forbidden('no-class', 'spec.runnerClassName: Not found: "gpu"'));
    expect((await request('GET', `${v1}/no-class`)).status).toBe(404);
    const alpha = await request('POST', v1alpha1, { body: alphaPipeline('no-class', 'gpu', 1) });
    expect(alpha.json).toEqual(forbidden('no-class', 'spec.runnerClass: Not found: "gpu"'));
    const dry = await request('POST', `${v1}?dryRun=All`, { body: pipeline('no-class', { runnerClassName: 'gpu' }) });
    expect(dry.status).toBe(403);
    // A Pipeline with no class names none.
    expect((await request('POST', v1, { body: pipeline('classless', { runnerClassName: undefined }) })).status).toBe(201);
  });

  it('admits a Pipeline once its RunnerClass exists', async () => {
    expect((await request('POST', runnerClasses, { body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'late' } } })).status).toBe(201);
    expect((await request('POST', v1, { body: pipeline('late', { runnerClassName: 'late' }) })).status).toBe(201);
  });

  describe('replicas within the RunnerClass maxReplicas', () => {
    it('on create, in v1 and v1alpha1, dry run or not', async () => {
      await request('POST', runnerClasses, {
        body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'small' }, spec: { maxReplicas: 2 } },
      });
      const over = await request('POST', v1, { body: pipeline('big', { runnerClassName: 'small', replicas: 3 }) });
      expect(over.json).toEqual(forbidden('big', `spec.replicas: ${overSmall(3)}`));
      const alpha = await request('POST', v1alpha1, { body: alphaPipeline('big', 'small', 3) });
      expect(alpha.json).toEqual(forbidden('big', `spec.parallelism: ${overSmall(3)}`));
      expect((await request('POST', `${v1}?dryRun=All`, { body: pipeline('big', { runnerClassName: 'small', replicas: 3 }) })).status).toBe(403);
      expect((await request('POST', `${v1}?dryRun=All`, { body: pipeline('big', { runnerClassName: 'small', replicas: 2 }) })).status).toBe(201);
      expect((await request('GET', `${v1}/big`)).status).toBe(404);
      expect((await request('POST', v1, { body: pipeline('within', { runnerClassName: 'small', replicas: 2 }) })).status).toBe(201);
    });

    it('on update, patch and apply, in v1 and v1alpha1', async () => {
      const live = (await request('GET', `${v1}/within`)).json;
      const put = await request('PUT', `${v1}/within`, { body: { ...live, spec: { ...live.spec, replicas: 5 } } });
      expect(put.json).toEqual(forbidden('within', `spec.replicas: ${overSmall(5)}`));
      const patched = await request('PATCH', `${v1}/within`, { body: { spec: { replicas: 3 } }, headers: merge });
      expect(patched.json).toEqual(forbidden('within', `spec.replicas: ${overSmall(3)}`));
      const alphaPatch = await request('PATCH', `${v1alpha1}/within`, { body: { spec: { parallelism: 4 } }, headers: merge });
      expect(alphaPatch.json).toEqual(forbidden('within', `spec.parallelism: ${overSmall(4)}`));
      const alphaPut = await request('PUT', `${v1alpha1}/within`, { body: alphaPipeline('within', 'small', 6) });
      expect(alphaPut.json).toEqual(forbidden('within', `spec.parallelism: ${overSmall(6)}`));
      const applied = await request('PATCH', `${v1}/within?fieldManager=alice&force=true`, {
        body: 'apiVersion: cairn.dev/v1\nkind: Pipeline\nmetadata: {name: within}\nspec: {replicas: 7}\n',
        headers: apply,
      });
      expect(applied.json).toEqual(forbidden('within', `spec.replicas: ${overSmall(7)}`));
      const alphaApplied = await request('PATCH', `${v1alpha1}/within?fieldManager=alice&force=true`, {
        body: 'apiVersion: cairn.dev/v1alpha1\nkind: Pipeline\nmetadata: {name: within}\nspec: {parallelism: 7}\n',
        headers: apply,
      });
      expect(alphaApplied.json).toEqual(forbidden('within', `spec.parallelism: ${overSmall(7)}`));
      // Moving to a class that does not exist is refused too; what is within bounds passes.
      const moved = await request('PATCH', `${v1}/within`, { body: { spec: { runnerClassName: 'missing' } }, headers: merge });
      expect(moved.json).toEqual(forbidden('within', 'spec.runnerClassName: Not found: "missing"'));
      expect((await request('PATCH', `${v1}/within?dryRun=All`, { body: { spec: { replicas: 3 } }, headers: merge })).status).toBe(403);
      expect((await request('PATCH', `${v1}/within`, { body: { spec: { replicas: 1 } }, headers: merge })).status).toBe(200);
      expect((await request('GET', `${v1}/within`)).json.spec.replicas).toBe(1);
    });

    it('through the scale subresource, in every version', async () => {
      const scale = (await request('GET', `${v1}/within/scale`)).json;
      const put = await request('PUT', `${v1}/within/scale`, { body: { ...scale, spec: { replicas: 3 } } });
      expect(put.json).toEqual(forbidden('within', `spec.replicas: ${overSmall(3)}`));
      const alpha = await request('PATCH', `${v1alpha1}/within/scale`, { body: { spec: { replicas: 9 } }, headers: merge });
      expect(alpha.json).toEqual(forbidden('within', `spec.replicas: ${overSmall(9)}`));
      expect((await request('PATCH', `${v1}/within/scale`, { body: { spec: { replicas: 2 } }, headers: merge })).json.spec.replicas).toBe(2);
    });
  });

  it('lets a Pipeline whose RunnerClass is gone be changed without naming another missing class, deleted, its finalizers removed, and its status written', async () => {
    await request('POST', runnerClasses, { body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'doomed' } } });
    const body = pipeline('orphan', { runnerClassName: 'doomed' });
    expect((await request('POST', v1, { body: { ...body, metadata: { ...body.metadata, finalizers: ['cairn.dev/hold'] } } })).status).toBe(201);
    expect((await request('DELETE', `${runnerClasses}/doomed`)).status).toBe(200);
    // The class it keeps was checked when it was named: its labels (or ownerReferences, as the garbage collector
    // removes them) and replicas still change, with no bound; naming another class that does not exist is refused.
    const relabel = await request('PATCH', `${v1}/orphan`, { body: { metadata: { labels: { a: 'b' } }, spec: { replicas: 9 } }, headers: merge });
    expect(relabel.status, relabel.text).toBe(200);
    expect(relabel.json.spec.replicas).toBe(9);
    const renamed = await request('PATCH', `${v1}/orphan`, { body: { spec: { runnerClassName: 'missing' } }, headers: merge });
    expect(renamed.json).toEqual(forbidden('orphan', 'spec.runnerClassName: Not found: "missing"'));
    expect((await request('PATCH', `${v1}/orphan/status`, { body: { status: { phase: 'Failed' } }, headers: merge })).status).toBe(200);
    expect((await request('DELETE', `${v1}/orphan`)).status).toBe(200);
    const released = await request('PATCH', `${v1}/orphan`, { body: { metadata: { finalizers: null } }, headers: merge });
    expect(released.status).toBe(200);
    expect((await request('GET', `${v1}/orphan`)).status).toBe(404);
  });
});
