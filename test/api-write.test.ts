/**
 * Write options as kube-apiserver takes them: dryRun=All on every mutating verb,
 * and fieldValidation for unknown and duplicate fields.
 */
import { describe, expect, it } from 'vitest';
import { backends, pipeline, sharedTestServer } from './support/test-server.js';
import { openWatch } from './support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/writes/pipelines';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe.each(backends)('write options on %s', (backend) => {
  const server = sharedTestServer({ backend });

  it('dry-runs every mutating verb: validated and defaulted, nothing persisted, no event', async () => {
    const created = (await server().request('POST', pipelines, { body: pipeline('real') })).json;
    const watch = await openWatch(server(), `${pipelines}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);

    const dryCreate = await server().request('POST', `${pipelines}?dryRun=All`, { body: pipeline('dry', { replicas: undefined }) });
    expect(dryCreate.status).toBe(201);
    expect(dryCreate.json.spec.replicas).toBe(1);
    expect(dryCreate.json.metadata.uid).toEqual(expect.any(String));
    const invalidDry = await server().request('POST', `${pipelines}?dryRun=All`, { body: pipeline('dry', { replicas: -1 }) });
    expect(invalidDry.status).toBe(422);
    const dryUpdate = await server().request('PUT', `${pipelines}/real?dryRun=All`, { body: { ...created, spec: { ...created.spec, replicas: 4 } } });
    expect(dryUpdate.json.spec.replicas).toBe(4);
    const dryPatch = await server().request('PATCH', `${pipelines}/real?dryRun=All`, { body: { spec: { replicas: 5 } }, headers: merge });
    expect(dryPatch.json.spec.replicas).toBe(5);
    const dryDelete = await server().request('DELETE', `${pipelines}/real`, { body: { dryRun: ['All'] } });
    expect(dryDelete.status).toBe(200);
    const dryCollection = await server().request('DELETE', `${pipelines}?dryRun=All`);
    expect(dryCollection.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['real']);

    const stored = (await server().request('GET', `${pipelines}/real`)).json;
    expect(stored.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(stored.spec.replicas).toBe(1);
    expect((await server().request('GET', `${pipelines}/dry`)).status).toBe(404);
    // The first event is the first real write.
    await server().request('PATCH', `${pipelines}/real`, { body: { spec: { replicas: 2 } }, headers: merge });
    const [event] = await watch.waitFor(1);
    expect(event).toMatchObject({ type: 'MODIFIED', object: { spec: { replicas: 2 } } });
    watch.close();
  });

  it('refuses duplicate and unknown fields under Strict, warns under Warn, ignores under Ignore', async () => {
    const raw =
      '{"apiVersion":"cairn.dev/v1","kind":"Pipeline","metadata":{"name":"NAME"},"spec":{"runnerClassName":"standard","replicas":1,"replicas":2,"bogus":true}}';
    const strict = await server().request('POST', `${pipelines}?fieldValidation=Strict`, { body: raw.replace('NAME', 'strict') });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe(
      'Pipeline in version "v1" cannot be handled as a Pipeline: strict decoding error: duplicate field "spec.replicas", unknown field "spec.bogus"',
    );
    const warn = await server().request('POST', pipelines, { body: raw.replace('NAME', 'warned') });
    expect(warn.status).toBe(201);
    expect(warn.headers['warning']).toEqual('299 - "duplicate field \\"spec.replicas\\"", 299 - "unknown field \\"spec.bogus\\""');
    expect(warn.json.spec).toEqual(expect.objectContaining({ replicas: 2 }));
    expect(warn.json.spec.bogus).toBeUndefined();
    const ignored = await server().request('POST', `${pipelines}?fieldValidation=Ignore`, { body: raw.replace('NAME', 'ignored') });
    expect(ignored.status).toBe(201);
    expect(ignored.headers['warning']).toBeUndefined();
    const patch = await server().request('PATCH', `${pipelines}/warned?fieldValidation=Strict`, {
      body: '{"spec":{"replicas":3,"replicas":4}}',
      headers: merge,
    });
    expect(patch.status).toBe(400);
    expect(patch.json.message).toContain('duplicate field "spec.replicas"');
  });
});
