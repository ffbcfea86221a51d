/**
 * Who owns what a mutating admission plugin adds, on every write verb: kube's handlers
 * record managedFields from the (patched) object first and run mutating admission on the
 * result, so the plugin's field is owned by no manager, and the client's fields by the
 * client's manager, on POST, PUT, PATCH and apply alike.
 */
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import type { Admission } from '../../src/registry/admission.js';
import { inProcessApp } from '../support/in-process-app.js';
import { pipeline } from '../support/test-server.js';

/** Sets label `stamp` on every Pipeline written, to a new value each time, as a mutating webhook might. */
let stamps = 0;
const stamping: Admission = {
  admit: (a) =>
    a.kind === 'Pipeline' && a.object
      ? { ...a.object, metadata: { ...a.object.metadata, labels: { ...a.object.metadata?.labels, stamp: String(++stamps) } } }
      : a.object!,
};

type Entry = { manager: string; operation: string; fieldsV1: Record<string, any> };
const entries = (object: any): Entry[] => object.metadata.managedFields ?? [];
/** The managers whose fieldsV1 hold label `key`. */
const labelOwners = (object: any, key: string) =>
  entries(object)
    .filter((e) => e.fieldsV1['f:metadata']?.['f:labels']?.[`f:${key}`] !== undefined)
    .map((e) => e.manager);
const ownedBy = (object: any, manager: string) => entries(object).find((e) => e.manager === manager)?.fieldsV1;

const pipelines = '/apis/cairn.dev/v1/namespaces/owners/pipelines';

describe('a mutating admission plugin’s change, owned by no manager', () => {
  const app = inProcessApp([cairnGroup], { admission: stamping });

  it('on POST, PUT, merge PATCH and apply, while the client owns what it sent', async () => {
    const created = await app().request('POST', `${pipelines}?fieldManager=poster`, { body: pipeline('owned', {}, { team: 'a' }) });
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata.labels).toEqual({ team: 'a', stamp: String(stamps) });
    expect(labelOwners(created.json, 'team')).toEqual(['poster']);
    expect(labelOwners(created.json, 'stamp')).toEqual([]);
    expect(ownedBy(created.json, 'poster')).toMatchObject({ 'f:spec': { 'f:steps': {} } });

    const body = { ...created.json, spec: { ...created.json.spec, replicas: 2 } };
    const put = await app().request('PUT', `${pipelines}/owned?fieldManager=putter`, { body });
    expect(put.status, put.text).toBe(200);
    expect(put.json.metadata.labels.stamp).toBe(String(stamps));
    expect(ownedBy(put.json, 'putter')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(labelOwners(put.json, 'stamp')).toEqual([]);

    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const patched = await app().request('PATCH', `${pipelines}/owned?fieldManager=merger`, { body: { metadata: { labels: { tier: 'b' } } }, headers: merge });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.metadata.labels.stamp).toBe(String(stamps));
    expect(ownedBy(patched.json, 'merger')).toEqual({ 'f:metadata': { 'f:labels': { 'f:tier': {} } } });
    expect(labelOwners(patched.json, 'stamp')).toEqual([]);

    const applied = await app().request('PATCH', `${pipelines}/owned?fieldManager=applier`, {
      body: { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'owned' }, spec: { paused: true } },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json.metadata.labels.stamp).toBe(String(stamps));
    expect(entries(applied.json).find((e) => e.manager === 'applier')).toMatchObject({ operation: 'Apply', fieldsV1: { 'f:spec': { 'f:paused': {} } } });
    expect(labelOwners(applied.json, 'stamp')).toEqual([]);
    // Four writes, four admissions: the label moved each time, and nobody took it.
    expect(stamps).toBe(4);
  });
});
