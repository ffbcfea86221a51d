/**
 * client-go reads Cairn's Protocol Buffers: `tools/kube/client-go-protobuf` (the pinned
 * kube's client-go, built by the global setup with the test control plane's programs)
 * lists, gets and watches PartialObjectMetadata in every version with the metadata
 * client, as kube's garbage collector and namespace controller do, reads a NotFound
 * Status, and gets and updates a Scale (and reads a Status) through a client that speaks
 * only protobuf.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline, startTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);
const protobuf = 'application/vnd.kubernetes.protobuf';

describe('client-go against Cairn in protobuf', () => {
  const binary = inject('goPrograms').clientGoProtobuf;
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite' });
    const created = await server.request('POST', '/apis/cairn.dev/v1/namespaces/go/pipelines', { body: pipeline('gopher', { replicas: 2 }, { app: 'go' }) });
    expect(created.status, created.text).toBe(201);
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('lists, gets and watches PartialObjectMetadata, reads a NotFound Status, and gets and puts a Scale', async () => {
    // Async: the server runs in this process, and must keep answering while the program runs.
    const { stdout } = await run(binary, [server.kubeconfigPath, 'go', 'gopher']);
    const reports = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const created = (await server.request('GET', '/apis/cairn.dev/v1/namespaces/go/pipelines/gopher')).json;
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const report = reports.find((r) => r.version === version);
      expect(report, version).toMatchObject({
        list: ['gopher'],
        listRV: expect.stringMatching(/^\d+$/),
        name: 'gopher',
        uid: created.metadata.uid,
        labels: { app: 'go' },
        creationTimestamp: created.metadata.creationTimestamp,
        managers: 1,
        notFound: true,
        watchType: 'ADDED',
        watchName: 'gopher',
      });
      // The list, the get and the watch stream were protobuf. The 404 was JSON, as kube writes it: the client
      // accepts protobuf only `as=PartialObjectMetadata`, which a Status is not, then plain `application/json`.
      expect(report.contentTypes, version).toEqual([protobuf, protobuf, expect.stringMatching(/^application\/json/), `${protobuf};stream=watch`]);
    }
    // The 404 of the protobuf-only client is a protobuf Status, which client-go reads as NotFound.
    expect(reports.at(-1)).toEqual({ scaleRead: 2, scaleWritten: 7, scaleNotFound: true, contentTypes: [protobuf, protobuf, protobuf] });
    expect((await server.request('GET', '/apis/cairn.dev/v1/namespaces/go/pipelines/gopher')).json.spec.replicas).toBe(7);
  });
});
