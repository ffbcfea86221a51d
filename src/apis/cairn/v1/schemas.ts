/**
 * The cairn.dev/v1 OpenAPI v3 schemas: they validate requests, document the API
 * (`kubectl explain`) and carry the list semantics that patches and apply follow.
 */
import type { JsonSchema } from '../../../machinery/json-schema.js';
import {
  apiVersion,
  condition,
  envVar,
  groupVersionKind,
  kindField,
  listMapByName,
  objectMeta,
  pipelineStatusFields,
  runnerClassNameRule,
  runnerClassSchemaOf,
  stepNameAndImage,
} from '../schema-parts.js';

/** Names of the v1 component schemas. */
export const v1SchemaNames = {
  pipeline: 'dev.cairn.v1.Pipeline',
  runnerClass: 'dev.cairn.v1.RunnerClass',
} as const;

const step: JsonSchema = {
  type: 'object',
  description: 'A step the runners of a Pipeline execute, in order.',
  required: ['name'],
  properties: {
    ...stepNameAndImage,
    command: {
      type: 'array',
      items: { type: 'string' },
      description: 'Entrypoint array, e.g. ["sh", "-c", "echo hi"].',
      'x-kubernetes-list-type': 'atomic',
    },
    env: {
      type: 'array',
      items: envVar,
      description: 'Environment variables of the step, one per name; patches and apply merge them by name.',
      ...listMapByName,
    },
  },
};

/** A v1 PipelineSpec. */
export const pipelineSpec: JsonSchema = {
  type: 'object',
  description: 'PipelineSpec is the desired state of a Pipeline.',
  properties: {
    runnerClassName: { type: 'string', description: `Name of the RunnerClass whose runners execute this Pipeline. ${runnerClassNameRule}` },
    replicas: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      description: "Number of parallel runners, the scale subresource's spec.replicas. Defaults to 1.",
    },
    paused: { type: 'boolean', description: 'Paused stops the runners without deleting the Pipeline.' },
    steps: {
      type: 'array',
      items: step,
      description: 'Steps the runners execute, in order, one per name; patches and apply merge them by name.',
      ...listMapByName,
    },
  },
};

/** A v1 PipelineStatus. */
export const pipelineStatus: JsonSchema = {
  type: 'object',
  description: 'PipelineStatus is the observed state of a Pipeline.',
  properties: {
    ...pipelineStatusFields,
    conditions: {
      type: 'array',
      items: condition,
      description: 'Conditions of the Pipeline, one per type; Ready tells whether every runner is ready.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
};

/** The v1 Pipeline schema. */
export const pipelineSchema: JsonSchema = {
  type: 'object',
  description: 'Pipeline is a long-running processing pipeline: N parallel runners execute its steps.',
  properties: { apiVersion, kind: kindField, metadata: objectMeta, spec: pipelineSpec, status: pipelineStatus },
  'x-kubernetes-group-version-kind': groupVersionKind('v1', 'Pipeline'),
};

/** The v1 RunnerClass schema. */
export const runnerClassSchema: JsonSchema = runnerClassSchemaOf('v1');
