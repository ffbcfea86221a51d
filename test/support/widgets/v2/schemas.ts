/** widgets.test/v2: `spec.size` is called `spec.replicas`. */
import type { JsonSchema } from '../../../../src/machinery/json-schema.js';
import { metaSchemaNames } from '../../../../src/machinery/types/meta-schemas.js';

/** The component name of a v2 Widget. */
export const widgetV2SchemaName = 'test.widgets.v2.Widget';

/** A Widget in v2: `spec.replicas` and `spec.color`. */
export const widgetV2Schema: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { allOf: [{ $ref: `#/components/schemas/${metaSchemaNames.objectMeta}` }] },
    spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, color: { type: 'string' } } },
  },
};
