/**
 * JSON → protobuf → JSON gives back the same object, for valid objects of every kind
 * and version and their lists, and for Status, Scale, PartialObjectMetadata(List)
 * and watch events. Objects are drawn from the schemas themselves, so a field added
 * to a schema is covered at once. Lists and maps are non-empty: protobuf cannot tell
 * an empty one from an absent one, and kube's JSON omits them (`omitempty`) alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxNestingDepth } from '../machinery/decoding/bounded-decoding.js';
import { componentRefPrefix, type JsonSchema } from '../machinery/json-schema.js';
import { metaSchemaNames, metaSchemas } from '../machinery/types/meta-schemas.js';
import { scaleSchemaName, scaleSchemas } from '../machinery/types/scale.js';
import { cairnGroup } from './cairn/register.js';
import { protobufScheme } from './protobuf.js';

const scheme = protobufScheme([cairnGroup]);
const components: Readonly<Record<string, JsonSchema>> = { ...metaSchemas, ...scaleSchemas };

const text = fc.string({ unit: 'grapheme', maxLength: 8 });
// kube's Time has whole seconds in JSON.
const time = fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
// A FieldsV1 document: JSON kept as bytes.
const fieldsV1 = fc.dictionary(
  text.map((t) => `f:${t}`),
  fc.constant({}),
  { minKeys: 1, maxKeys: 3 },
);

/** Valid JSON values of `schema`, every property optional. */
function arbitraryOf(schema: JsonSchema, skip: readonly string[] = []): fc.Arbitrary<unknown> {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
  if (ref) return arbitraryOf(components[ref.slice(componentRefPrefix.length)]);
  if (schema['x-kubernetes-preserve-unknown-fields']) return fieldsV1;
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time' ? time : text;
    case 'integer':
      return schema.format === 'int32' ? fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) : fc.maxSafeInteger();
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitraryOf(schema.items!), { minLength: 1, maxLength: 3 });
    default: {
      if (!schema.properties) return fc.dictionary(text, text, { minKeys: 1, maxKeys: 3 });
      const properties = Object.entries(schema.properties).filter(([name]) => !skip.includes(name));
      return fc.record(Object.fromEntries(properties.map(([name, property]) => [name, arbitraryOf(property)])), { requiredKeys: [] });
    }
  }
}

const typed = (apiVersion: string, kind: string, fields: fc.Arbitrary<unknown>) => fields.map((value) => ({ apiVersion, kind, ...(value as object) }));
const listOf = (apiVersion: string, kind: string, item: fc.Arbitrary<object>) =>
  fc
    .record({ metadata: arbitraryOf(components[metaSchemaNames.listMeta]), items: fc.array(item, { minLength: 1, maxLength: 3 }) }, { requiredKeys: ['items'] })
    .map((list) => ({ apiVersion, kind, ...list }));

const kinds: [string, fc.Arbitrary<object>][] = cairnGroup.resources.flatMap((resource) =>
  resource.versions.flatMap((v) => {
    const apiVersion = `${cairnGroup.name}/${v.version}`;
    const object = typed(apiVersion, resource.kind, arbitraryOf(v.schema, ['apiVersion', 'kind']));
    return [
      [`${apiVersion} ${resource.kind}`, object],
      [`${apiVersion} ${resource.listKind}`, listOf(apiVersion, resource.listKind, object)],
    ] as [string, fc.Arbitrary<object>][];
  }),
);
const partialObjectMetadata = (version: string) =>
  typed(`meta.k8s.io/${version}`, 'PartialObjectMetadata', fc.record({ metadata: arbitraryOf(components[metaSchemaNames.objectMeta]) }));
const kubeKinds: [string, fc.Arbitrary<object>][] = [
  ['v1 Status', typed('v1', 'Status', arbitraryOf(components[metaSchemaNames.status], ['apiVersion', 'kind']))],
  ['autoscaling/v1 Scale', typed('autoscaling/v1', 'Scale', arbitraryOf(components[scaleSchemaName], ['apiVersion', 'kind']))],
  ...['v1', 'v1beta1'].flatMap((version): [string, fc.Arbitrary<object>][] => [
    [`meta.k8s.io/${version} PartialObjectMetadata`, partialObjectMetadata(version)],
    [`meta.k8s.io/${version} PartialObjectMetadataList`, listOf(`meta.k8s.io/${version}`, 'PartialObjectMetadataList', partialObjectMetadata(version))],
  ]),
];

describe('protobuf round trips', () => {
  it.each([...kinds, ...kubeKinds])('%s: JSON → protobuf → JSON is the same object', (_, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (value) => {
        expect(scheme.decode(scheme.encode(value))).toEqual(value);
      }),
      { numRuns: 60 },
    );
  });

  it.each(kinds.filter(([name]) => !name.endsWith('List')))('%s: a watch event carries the object unchanged', (_, arbitrary) => {
    fc.assert(
      fc.property(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), arbitrary, (type, object) => {
        expect(scheme.decodeWatchEvent(scheme.encodeWatchEvent({ type, object }))).toEqual({ type, object });
      }),
      { numRuns: 30 },
    );
  });

  it('writes every message in the envelope: k8s\\0, then a runtime.Unknown naming the kind', () => {
    const bytes = scheme.encode({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', spec: { replicas: 0 } });
    // Unknown{typeMeta(1){apiVersion(1) "cairn.dev/v1", kind(2) "Pipeline"}, raw(2) Pipeline{spec(2){replicas(2) 0}}}
    const expected = Buffer.concat([
      Buffer.from('k8s\0'),
      Buffer.from([0x0a, 0x18, 0x0a, 0x0c]),
      Buffer.from('cairn.dev/v1'),
      Buffer.from([0x12, 0x08]),
      Buffer.from('Pipeline'),
      Buffer.from([0x12, 0x04, 0x12, 0x02, 0x10, 0x00]),
    ]);
    expect(bytes).toEqual(expected);
  });

  it('reads the JSON inside a message (FieldsV1) within the decoding bounds: too deep is a 400', () => {
    let fieldsV1: object = {};
    for (let depth = 0; depth <= maxNestingDepth; depth++) fieldsV1 = { 'f:a': fieldsV1 };
    const bytes = scheme.encode({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { managedFields: [{ manager: 'm', fieldsV1 }] } });
    expect(() => scheme.decode(bytes)).toThrow(expect.objectContaining({ code: 400 }));
  });

  it('knows no Table, and refuses what is not an enveloped message of a known kind', () => {
    expect(scheme.recognizes({ apiVersion: 'meta.k8s.io/v1', kind: 'Table' })).toBe(false);
    expect(() => scheme.decode(Buffer.from('{}'))).toThrow(expect.objectContaining({ code: 400 }));
    const table = Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0x07, 0x12, 0x05]), Buffer.from('Table')]);
    expect(() => scheme.decode(table)).toThrow(expect.objectContaining({ code: 400, message: expect.stringContaining('no kind "Table"') }));
  });
});
