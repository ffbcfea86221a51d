/**
 * Schema pieces every version of cairn.dev shares: the type and object metadata
 * fields, and the nested types whose shape no version changes (environment
 * variables, conditions). A version's own fields live in its folder.
 */
import type { JsonSchema } from '../../machinery/json-schema.js';
import { metaSchemaNames } from '../../machinery/types/meta-schemas.js';
import { groupName } from './group-name.js';

/** `x-kubernetes-group-version-kind` of a kind in a version. */
export const groupVersionKind = (version: string, kind: string) => [{ group: groupName, version, kind }];

export const objectMeta: JsonSchema = {
  allOf: [{ $ref: `#/components/schemas/${metaSchemaNames.objectMeta}` }],
  description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};
export const apiVersion: JsonSchema = { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
export const kindField: JsonSchema = { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };

export const envVar: JsonSchema = {
  type: 'object',
  description: 'An environment variable set for a step.',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Name of the environment variable.' },
    value: { type: 'string', description: 'Value of the environment variable.' },
  },
};

export const condition: JsonSchema = {
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

/** A step's fields that every version has. */
export const stepNameAndImage: Readonly<Record<string, JsonSchema>> = {
  name: { type: 'string', minLength: 1, maxLength: 63, description: 'Name of the step, unique within the Pipeline.' },
  image: { type: 'string', description: 'Container image the step runs in; defaults to the RunnerClass image.' },
};

/** The PipelineStatus fields every version has, in their order (a version adds its readiness field after them). */
export const pipelineStatusFields: Readonly<Record<string, JsonSchema>> = {
  phase: { type: 'string', enum: ['Pending', 'Running', 'Paused', 'Failed'], description: 'Phase: Pending, Running, Paused or Failed.' },
  replicas: { type: 'integer', format: 'int32', minimum: 0, description: "Number of runners that exist, the scale subresource's status.replicas." },
  readyReplicas: { type: 'integer', format: 'int32', minimum: 0, description: 'Number of runners that are ready.' },
  selector: {
    type: 'string',
    description: "Label selector of the runners in string form, the scale subresource's status.selector (a HorizontalPodAutoscaler reads it).",
  },
  observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The generation the controller last acted on.' },
};

/** A list-map merged by `name` in patches and apply. */
export const listMapByName = {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  'x-kubernetes-patch-merge-key': 'name',
  'x-kubernetes-patch-strategy': 'merge',
} as const;

/** What a RunnerClass name may be, said wherever one is named (validation.ts holds the rule). */
export const runnerClassNameRule =
  "A RunnerClass name is free as a ClusterRole name: any characters except '/' and '%', not '.' or '..', at most 253 characters (e.g. 'gpu:large', 'Team A'); it need not be a DNS subdomain.";

/** The RunnerClass schema, the same in every version. */
export function runnerClassSchemaOf(version: string): JsonSchema {
  return {
    type: 'object',
    description: `RunnerClass is a cluster-scoped class of runners that Pipelines reference by name. ${runnerClassNameRule}`,
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
    'x-kubernetes-group-version-kind': groupVersionKind(version, 'RunnerClass'),
  };
}
