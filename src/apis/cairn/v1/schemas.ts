/**
 * The cairn.dev/v1 OpenAPI v3 schemas: they validate requests, document the API
 * (`kubectl explain`) and carry the list semantics that patches and apply follow.
 */
import type { JsonSchema } from '../../../machinery/json-schema.js';
import { metaSchemaNames } from '../../../machinery/types/meta-schemas.js';

const gvk = (kind: string) => [{ group: 'cairn.dev', version: 'v1', kind }];
const objectMeta: JsonSchema = {
  allOf: [{ $ref: `#/components/schemas/${metaSchemaNames.objectMeta}` }],
  description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};
const apiVersion: JsonSchema = { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
const kindField: JsonSchema = { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };

/** Names of the v1 component schemas. */
export const v1SchemaNames = {
  pipeline: 'dev.cairn.v1.Pipeline',
  runnerClass: 'dev.cairn.v1.RunnerClass',
} as const;

const envVar: JsonSchema = {
  type: 'object',
  description: 'An environment variable set for a step.',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Name of the environment variable.' },
    value: { type: 'string', description: 'Value of the environment variable.' },
  },
};

const step: JsonSchema = {
  type: 'object',
  description: 'A step the runners of a Pipeline execute, in order.',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 63, description: 'Name of the step, unique within the Pipeline.' },
    image: { type: 'string', description: 'Container image the step runs in; defaults to the RunnerClass image.' },
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
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
};

const condition: JsonSchema = {
  type: 'object',
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  required: ['type', 'status'],
  properties: {
    type: { type: 'string', description: 'Type of condition in CamelCase, e.g. Ready.' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'Status of the condition, one of True, False, Unknown.' },
    reason: { type: 'string', description: "A programmatic identifier indicating the reason for the condition's last transition." },
    message: { type: 'string', description: 'A human readable message indicating details about the transition.' },
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'The last time the condition transitioned from one status to another.' },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The .metadata.generation that the condition was set based upon.' },
  },
};

/** The v1 Pipeline schema. */
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
        runnerClassName: { type: 'string', description: 'Name of the RunnerClass whose runners execute this Pipeline.' },
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
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        },
      },
    },
    status: {
      type: 'object',
      description: 'PipelineStatus is the observed state of a Pipeline.',
      properties: {
        phase: { type: 'string', enum: ['Pending', 'Running', 'Paused', 'Failed'], description: 'Phase: Pending, Running, Paused or Failed.' },
        replicas: { type: 'integer', format: 'int32', minimum: 0, description: "Number of runners that exist, the scale subresource's status.replicas." },
        readyReplicas: { type: 'integer', format: 'int32', minimum: 0, description: 'Number of runners that are ready.' },
        selector: {
          type: 'string',
          description: "Label selector of the runners in string form, the scale subresource's status.selector (a HorizontalPodAutoscaler reads it).",
        },
        observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The generation the controller last acted on.' },
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
    },
  },
  'x-kubernetes-group-version-kind': gvk('Pipeline'),
};

/** The v1 RunnerClass schema. */
export const runnerClassSchema: JsonSchema = {
  type: 'object',
  description: 'RunnerClass is a cluster-scoped class of runners that Pipelines reference by name.',
  properties: {
    apiVersion,
    kind: kindField,
    metadata: objectMeta,
    spec: {
      type: 'object',
      description: 'RunnerClassSpec describes a class of runners.',
      properties: {
        image: { type: 'string', description: 'Default image of the runners of this class.' },
        maxReplicas: { type: 'integer', format: 'int32', minimum: 0, description: 'Upper bound of replicas for Pipelines of this class.' },
      },
    },
    status: {
      type: 'object',
      description: 'RunnerClassStatus is the observed state of a RunnerClass.',
      properties: {
        pipelines: { type: 'integer', format: 'int32', minimum: 0, description: 'Number of Pipelines using this class.' },
      },
    },
  },
  'x-kubernetes-group-version-kind': gvk('RunnerClass'),
};
