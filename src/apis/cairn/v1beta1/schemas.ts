/**
 * The cairn.dev/v1beta1 OpenAPI v3 schemas: v1beta1 has v1's fields (docs/api-reference.md), so
 * it names v1's spec and status; a later v1 change must give v1beta1 its own copy first.
 */
import type { JsonSchema } from '../../../machinery/json-schema.js';
import { apiVersion, groupVersionKind, kindField, objectMeta, runnerClassSchemaOf } from '../schema-parts.js';
import { pipelineSpec, pipelineStatus } from '../v1/schemas.js';

/** Names of the v1beta1 component schemas. */
export const v1beta1SchemaNames = {
  pipeline: 'dev.cairn.v1beta1.Pipeline',
  runnerClass: 'dev.cairn.v1beta1.RunnerClass',
} as const;

/** The v1beta1 Pipeline schema. */
export const pipelineSchema: JsonSchema = {
  type: 'object',
  description: 'Pipeline is a long-running processing pipeline: N parallel runners execute its steps.',
  properties: { apiVersion, kind: kindField, metadata: objectMeta, spec: pipelineSpec, status: pipelineStatus },
  'x-kubernetes-group-version-kind': groupVersionKind('v1beta1', 'Pipeline'),
};

/** The v1beta1 RunnerClass schema. */
export const runnerClassSchema: JsonSchema = runnerClassSchemaOf('v1beta1');
