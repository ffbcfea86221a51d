/**
 * Protobuf messages made from the OpenAPI schemas: field numbers that never change, and the
 * types fields map to.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../json-schema.js';
import { kindMessages, renderProto } from './schema-messages.js';

const kind = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, spec: { type: 'object', properties } },
});
const fieldsOf = (messages: ReturnType<typeof kindMessages>['messages'], name: string) =>
  Object.fromEntries(messages.find((m) => m.name === name)!.fields.map((f) => [f.name, f.number]));

describe('messages from schemas', () => {
  it('number fields in schema order, leaving apiVersion and kind to the envelope', () => {
    const { messages, numbers } = kindMessages(
      [{ message: 'x.v1.Widget', schema: kind({ size: { type: 'integer', format: 'int32' }, name: { type: 'string' } }) }],
      {},
    );
    expect(fieldsOf(messages, 'x.v1.Widget')).toEqual({ spec: 1 });
    expect(numbers).toEqual({ 'x.v1.Widget': { spec: 1 }, 'x.v1.WidgetSpec': { size: 1, name: 2 } });
    expect(fieldsOf(messages, 'x.v1.WidgetList')).toEqual({ metadata: 1, items: 2 });
  });

  it('never renumber: a new field takes the next number wherever it sits, a removed one stays reserved', () => {
    const committed = { 'x.v1.Widget': { spec: 1 }, 'x.v1.WidgetSpec': { size: 1, name: 2, color: 3 } };
    const schema = kind({ shape: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer', format: 'int32' } });
    const { messages, numbers } = kindMessages([{ message: 'x.v1.Widget', schema }], committed);
    expect(fieldsOf(messages, 'x.v1.WidgetSpec')).toEqual({ shape: 4, name: 2, size: 1 });
    expect(numbers['x.v1.WidgetSpec']).toEqual({ size: 1, name: 2, color: 3, shape: 4 });
    const proto = renderProto('x.v1', messages);
    expect(proto).toContain(
      'message WidgetSpec {\n  reserved 3;\n  reserved "color";\n  optional int32 size = 1;\n  optional string name = 2;\n  optional string shape = 4;\n}',
    );
  });

  it('map nested objects, lists, string maps and times to messages, repeated fields, maps and meta.v1.Time', () => {
    const schema = kind({
      steps: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      since: { type: 'string', format: 'date-time' },
      count: { type: 'integer', format: 'int64' },
    });
    const proto = renderProto('x.v1', kindMessages([{ message: 'x.v1.Widget', schema }], {}).messages);
    expect(proto).toContain(
      '  repeated WidgetSpecStep steps = 1;\n  map<string, string> labels = 2;\n  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time since = 3;\n  optional int64 count = 4;',
    );
    expect(proto).toContain('message WidgetSpecStep {\n  optional string name = 1;\n}');
  });

  it('refuse what has no message yet rather than guess', () => {
    const unknownFields = kind({ raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
    expect(() => kindMessages([{ message: 'x.v1.Widget', schema: unknownFields }], {})).toThrow(/WidgetSpec.raw/);
    expect(() => kindMessages([{ message: 'x.v1.Widget', schema: kind({ 'a-b': { type: 'string' } }) }], {})).toThrow(/no protobuf field name/);
  });
});
