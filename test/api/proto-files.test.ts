/**
 * The committed `.proto` files and field numbers are what the code makes (`npm run
 * proto`), and they describe the bytes the server writes: a client compiling them
 * reads every field.
 */
import { readFile } from 'node:fs/promises';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { protobufScheme } from '../../src/apis/protobuf.js';
import { kubeMessages } from '../../src/machinery/protobuf/kube-messages.js';
import { protobufMagic } from '../../src/machinery/protobuf/protobuf-scheme.js';
import { protoFiles, protoFilesIn } from '../../src/server/proto-files.js';
import { servedGroups } from '../../src/server/server.js';
import { pipeline } from '../support/test-server.js';

const files = protoFiles(servedGroups);

describe('proto/', () => {
  it('has the committed .proto files and field numbers up to date', async () => {
    const protos = [...files.keys()].filter((path) => path.endsWith('.proto')).sort();
    expect(await protoFilesIn('.'), 'proto/ has other files than the code generates: run `npm run proto`').toEqual(protos);
    for (const [path, content] of files) expect(await readFile(path, 'utf8'), `${path} is stale: run \`npm run proto\``).toBe(content);
  });

  it('describes what the server writes', () => {
    const root = kubeMessages();
    for (const [path, content] of files) if (path.endsWith('.proto')) protobuf.parse(content, root, { keepCase: true });
    root.resolveAll();
    const object = { ...pipeline('p', { replicas: 2 }), metadata: { name: 'p', creationTimestamp: '2026-01-02T03:04:05Z' } };
    const bytes = protobufScheme(servedGroups).encode(object);
    const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(bytes.subarray(protobufMagic.length)) as unknown as {
      typeMeta: { apiVersion: string; kind: string };
      raw: Uint8Array;
    };
    expect(unknown.typeMeta).toMatchObject({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline' });
    const decoded = root.lookupType('dev.cairn.v1.Pipeline').toObject(root.lookupType('dev.cairn.v1.Pipeline').decode(unknown.raw), { longs: Number });
    expect(decoded).toEqual({
      metadata: { name: 'p', creationTimestamp: { seconds: Date.parse('2026-01-02T03:04:05Z') / 1000 } },
      spec: { runnerClassName: 'standard', replicas: 2, steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'] }] },
    });
  });
});
