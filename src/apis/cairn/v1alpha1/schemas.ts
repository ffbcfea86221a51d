/**
 * The cairn.dev/v1alpha1 OpenAPI v3 schemas.
 */
import type { JsonSchema } from '../../../machinery/json-schema.js';
import {
  apiVersion,
  groupVersionKind,
  kindField,
  listMapByName,
  objectMeta,
  pipelineStatusFields,
  runnerClassNameRule,
  runnerClassSchemaOf,
  stepNameAndImage,
} from '../schema-parts.js';

/** Names of the v1alpha1 component schemas. */
export const v1alpha1SchemaNames = {
  pipeline: 'dev.cairn.v1alpha1.Pipeline',
  runnerClass: 'dev.cairn.v1alpha1.RunnerClass',
} as const;

const step: JsonSchema = {
  type: 'object',
  description: 'A step the runners of a Pipeline execute, in order.',
  required: ['name'],
  properties: {
    ...stepNameAndImage,
    run: { type: 'string', description: 'Shell command the step runs with `sh -c`.' },
  },
};

/** The v1alpha1 Pipeline schema. */
export const pipelineSchema: JsonSchema = {
  type: 'object',
  description: 'Pipeline is a long-running processing pipeline: N parallel runners execute its steps.',
  properties: {
    apiVersion,
    kind: kindField,
    metadata: objectMeta,
    spec: {
      type: 'object',
      description: 'PipelineSpec is the desired state of a Pipeline.',
      properties: {
        runnerClass: { type: 'string', description: `Name of the RunnerClass whose runners execute this Pipeline. ${runnerClassNameRule}` },
        parallelism: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          description: "Number of parallel runners, the scale subresource's spec.replicas. Defaults to 1.",
        },
        steps: {
          type: 'array',
          items: step,
          description: 'Steps the runners execute, in order, one per name; patches and apply merge them by name.',
          ...listMapByName,
        },
      },
    },
    status: {
      type: 'object',
      description: 'PipelineStatus is the observed state of a Pipeline.',
      properties: {
        ...pipelineStatusFields,
        ready: { type: 'boolean', description: 'Whether every runner of the Pipeline is ready.' },
      },
    },
  },
  'x-kubernetes-group-version-kind': groupVersionKind('v1alpha1', 'Pipeline'),
};

/** The v1alpha1 RunnerClass schema. */
export const runnerClassSchema: JsonSchema = runnerClassSchemaOf('v1alpha1');
