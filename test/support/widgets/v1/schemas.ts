/** widgets.test/v1: the storage version of the test kind. */
import type { JsonSchema } from '../../../../src/machinery/json-schema.js';
import { metaSchemaNames } from '../../../../src/machinery/types/meta-schemas.js';

/** The component name of a v1 Widget. */
export const widgetV1SchemaName = 'test.widgets.v1.Widget';

/** A Widget in v1: `spec.size` and `spec.color`. */
export const widgetV1Schema: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { allOf: [{ $ref: `#/components/schemas/${metaSchemaNames.objectMeta}` }] },
    spec: { type: 'object', properties: { size: { type: 'integer', minimum: 0 }, color: { type: 'string' } } },
  },
};
