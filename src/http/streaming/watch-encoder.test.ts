/**
 * The watch encoder, representation by representation and serializer by serializer: each
 * event's frame carries the hub object converted to the request's version and put in the
 * negotiated representation; watchers that agree on version, representation and media type
 * share one frame per event type, and watchers of one version one conversion; a Table shares
 * no frame; YAML cannot stream.
 */
import { describe, expect, it } from 'vitest';
import { servedVersion } from '../../apis/api-resource.js';
import { cairnGroup } from '../../apis/cairn/register.js';
import type { KubeObject } from '../../machinery/meta/object.js';
import { failureStatus } from '../../machinery/status.js';
import type { OutputTarget } from '../response/negotiation.js';
import { Representation } from '../response/representation.js';
import { serializerOf } from '../serializers/serializers.js';
import { WatchEncoder, type Frame } from './watch-encoder.js';

const pipelines = cairnGroup.resources.find((r) => r.plural === 'pipelines')!;
const stored = (name: string): KubeObject => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Pipeline',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', labels: { app: 'a' } },
  spec: { runnerClassName: 'standard', replicas: 1, steps: [{ name: 'fetch', image: 'alpine' }] },
});

/** How many hub objects were converted to another version. */
let conversions = 0;

/** A watch's encoder of hub objects, in `apiVersion`. */
const encoder = (target: OutputTarget, apiVersion = 'cairn.dev/v1') => {
  const version = apiVersion.split('/')[1];
  const fromStorage = servedVersion(pipelines, version)!.fromStorage!;
  const fromHub = (object: KubeObject): KubeObject => {
    conversions++;
    return fromStorage(object);
  };
  const representation = new Representation(pipelines, version, target, () => 'Metadata', { tableColumns: pipelines.printerColumns, fromHub });
  return new WatchEncoder(apiVersion, representation, serializerOf(target.format));
};
const jsonEvent = (frame: Frame) => JSON.parse(typeof frame === 'string' ? frame : Buffer.from(frame).toString('utf8'));

const plain: OutputTarget = { format: 'json' };
const partial: OutputTarget = { format: 'json', transform: { as: 'PartialObjectMetadata', version: 'v1' } };
const table: OutputTarget = { format: 'json', transform: { as: 'Table', version: 'v1' } };
const protobuf: OutputTarget = { format: 'protobuf' };

describe('WatchEncoder', () => {
  it.each([
    ['the object itself', plain, { kind: 'Pipeline', apiVersion: 'cairn.dev/v1', metadata: { name: 'p' }, spec: { replicas: 1 } }],
    ['PartialObjectMetadata', partial, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'p' } }],
    ['a one-row Table', table, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: expect.arrayContaining(['p', 'standard', 1]) as unknown }] }],
  ])('frames an event of %s as one JSON line', (_, target, object) => {
    for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
      const frame = encoder(target).objectEvent(type, stored('p'));
      expect(typeof frame === 'string' ? frame : Buffer.from(frame).toString()).toMatch(/\n$/);
      expect(jsonEvent(frame)).toMatchObject({ type, object });
    }
    expect(jsonEvent(encoder(partial).objectEvent('ADDED', stored('p'))).object).not.toHaveProperty('spec');
  });

  it.each([
    [
      'the kind with only a resourceVersion',
      plain,
      { kind: 'Pipeline', apiVersion: 'cairn.dev/v1', metadata: { resourceVersion: '9', annotations: { a: 'b' } } },
    ],
    [
      'PartialObjectMetadata',
      partial,
      { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9', annotations: { a: 'b' } } },
    ],
    ['an empty Table', table, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' }, rows: [] }],
  ])('writes a BOOKMARK as %s', (_, target, object) => {
    expect(jsonEvent(encoder(target).bookmark('9', { a: 'b' }))).toEqual({ type: 'BOOKMARK', object: expect.objectContaining(object) as unknown });
  });

  it('writes an ERROR event carrying the Status', () => {
    const gone = failureStatus(410, 'Expired', 'too old resource version: 1 (7)');
    expect(jsonEvent(encoder(plain).error(gone))).toEqual({ type: 'ERROR', object: gone });
  });

  it('gives a Table its column definitions in the first event only, as kube does', () => {
    const watch = encoder(table);
    const [first, second] = [watch.objectEvent('ADDED', stored('a')), watch.sharedObjectEvent('MODIFIED', stored('b'))].map((f) => jsonEvent(f).object);
    expect(first.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'RunnerClass', 'Replicas', 'Ready', 'Phase', 'Age']);
    // Go's nil slice, as kube writes it.
    expect(second.columnDefinitions).toBeNull();
  });

  it.each([
    ['the object itself in JSON', plain],
    ['PartialObjectMetadata in JSON', partial],
    ['the object itself in protobuf', protobuf],
  ])('shares one frame of %s among watchers of one version, per event type', (_, target) => {
    const [one, other] = [encoder(target), encoder(target)];
    const object = stored('shared');
    const added = one.sharedObjectEvent('ADDED', object);
    expect(other.sharedObjectEvent('ADDED', object)).toBe(added);
    const modified = other.sharedObjectEvent('MODIFIED', object);
    expect(modified).not.toBe(added);
    expect(one.sharedObjectEvent('MODIFIED', object)).toBe(modified);
    // An initial event is the watch's own: encoded again, never cached.
    expect(one.objectEvent('ADDED', object)).not.toBe(added);
  });

  it('converts a hub object to the watch’s version, once per version for every watcher of an object the watch cache shares', () => {
    const object = stored('converted');
    const before = conversions;
    const [one, other, metadata] = [encoder(plain, 'cairn.dev/v1alpha1'), encoder(plain, 'cairn.dev/v1alpha1'), encoder(partial, 'cairn.dev/v1alpha1')];
    const frames = [one, other, metadata].map((watch) => jsonEvent(watch.sharedObjectEvent('ADDED', object)).object);
    expect(frames[0]).toMatchObject({ apiVersion: 'cairn.dev/v1alpha1', spec: { runnerClass: 'standard', parallelism: 1 } });
    expect(frames[2]).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'converted' } });
    expect(conversions - before).toBe(1);
    // The storage version's watchers are sent the hub object as it is.
    expect(jsonEvent(encoder(plain).sharedObjectEvent('ADDED', object)).object).toMatchObject({ apiVersion: 'cairn.dev/v1', spec: { replicas: 1 } });
    expect(conversions - before).toBe(1);
  });

  it.each([
    ['another version', () => [encoder(plain, 'cairn.dev/v1'), encoder(plain, 'cairn.dev/v1beta1')]],
    ['another representation', () => [encoder(plain), encoder(partial)]],
    ['another media type', () => [encoder(plain), encoder(protobuf)]],
  ])('does not share a frame with a watcher of %s', (_, watchers) => {
    const [one, other] = watchers();
    const object = stored('apart');
    expect(other.sharedObjectEvent('ADDED', object)).not.toBe(one.sharedObjectEvent('ADDED', object));
  });

  it('shares no frame among Table watchers: each watcher’s first event has its own column definitions', () => {
    const [one, other] = [encoder(table), encoder(table)];
    one.objectEvent('ADDED', stored('first'));
    const object = stored('tabled');
    const [mine, theirs] = [one, other].map((watch) => jsonEvent(watch.sharedObjectEvent('MODIFIED', object)).object);
    expect(mine.columnDefinitions).toBeNull();
    expect(theirs.columnDefinitions).toHaveLength(6);
  });

  it('streams only in a serializer with a framer: JSON and protobuf, not YAML', () => {
    expect(encoder(plain).mediaType).toBe('application/json');
    expect(encoder(protobuf).mediaType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    expect(() => encoder({ format: 'yaml' })).toThrow('application/yaml cannot carry a watch stream');
  });
});
