/**
 * autoscaling/v1 Scale: the view of an object that `kubectl scale` and a
 * HorizontalPodAutoscaler read and write, mapped onto the object by paths as a
 * CustomResourceDefinition's scale subresource maps it.
 */
import type { JsonSchema } from '../json-schema.js';
import type { GroupVersionKind } from '../meta/group-version-kind.js';
import { badRequest, invalid, type FieldError } from '../errors.js';
import { deepCopy, isPlainObject, valueAt, type KubeObject } from '../meta/object.js';
import { typeMetaFields, wireTypeError, type WireType } from '../decoding/wire-types.js';
import { fieldPath, invalid as invalidField } from '../field-errors.js';

/** Where an object keeps what its Scale shows, as dotted paths (`spec.replicas`). */
export interface ScalePaths {
  readonly specReplicas: string;
  readonly statusReplicas: string;
  readonly labelSelector?: string;
}

/** An autoscaling/v1 Scale (a type alias, so it passes where any JSON object does). */
export type Scale = {
  readonly kind: 'Scale';
  readonly apiVersion: 'autoscaling/v1';
  readonly metadata: KubeObject['metadata'];
  readonly spec: { readonly replicas?: number };
  readonly status: { readonly replicas: number; readonly selector?: string };
};

const scaleApiVersion = 'autoscaling/v1';
const autoscaling = 'io.k8s.api.autoscaling.v1';

/** What a scale subresource's objects are. */
export const scaleKind: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** Component names of the Scale schemas. */
export const scaleSchemaName = `${autoscaling}.Scale`;

/** The OpenAPI component schemas of autoscaling/v1 Scale. */
export const scaleSchemas: Readonly<Record<string, JsonSchema>> = {
  [scaleSchemaName]: {
    type: 'object',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], description: 'Standard object metadata.' },
      spec: { allOf: [{ $ref: `#/components/schemas/${autoscaling}.ScaleSpec` }], description: 'spec defines the behavior of the scale.' },
      status: { allOf: [{ $ref: `#/components/schemas/${autoscaling}.ScaleStatus` }], description: 'status is the current status of the scale. Read-only.' },
    },
    'x-kubernetes-group-version-kind': [scaleKind],
  },
  [`${autoscaling}.ScaleSpec`]: {
    type: 'object',
    description: 'ScaleSpec describes the attributes of a scale subresource.',
    properties: { replicas: { type: 'integer', format: 'int32', description: 'replicas is the desired number of instances for the scaled object.' } },
  },
  [`${autoscaling}.ScaleStatus`]: {
    type: 'object',
    description: 'ScaleStatus represents the current status of a scale subresource.',
    required: ['replicas'],
    properties: {
      replicas: { type: 'integer', format: 'int32', description: 'replicas is the actual number of observed instances of the scaled object.' },
      selector: { type: 'string', description: 'selector is the label query over pods that should match the replicas count, in string form.' },
    },
  },
};

function withValueAt(object: KubeObject, path: string, value: unknown): KubeObject {
  const copy = deepCopy(object);
  const parts = path.split('.');
  let node = copy as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
  return copy;
}

/** The Scale of `object`; what it lacks reads as 0 replicas, as kube reads it. */
export function scaleOf(object: KubeObject, paths: ScalePaths): Scale {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata ?? {};
  const specReplicas = valueAt(object, paths.specReplicas);
  const statusReplicas = valueAt(object, paths.statusReplicas);
  const selector = paths.labelSelector === undefined ? undefined : valueAt(object, paths.labelSelector);
  return {
    kind: 'Scale',
    apiVersion: scaleApiVersion,
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(typeof selector === 'string' && selector ? { selector } : {}) },
  };
}

/** autoscaling/v1 Scale as Go decodes it: metadata is checked by ObjectMeta's rules elsewhere. */
const scaleType: WireType = {
  struct: 'v1.Scale',
  fields: {
    ...typeMetaFields,
    metadata: 'object',
    spec: { struct: 'v1.ScaleSpec', fields: { replicas: 'int32' } },
    status: { struct: 'v1.ScaleStatus', fields: { replicas: 'int32', selector: 'string' } },
  },
};

/** What Go's decoder says of a body that is not an autoscaling/v1 Scale's shape (a field of the wrong type); undefined when it is one. */
export function scaleTypeError(scale: unknown): string | undefined {
  return wireTypeError(scale, scaleType, 'Scale');
}

/**
 * The object with the replicas a Scale asks for; 400 for something that is not a
 * Scale (a field of the wrong type included, as Go's decoder refuses it), 422 (on
 * `Scale.autoscaling`) for negative replicas.
 */
export function objectWithScale(object: KubeObject, scale: unknown, paths: ScalePaths): KubeObject {
  if (!isPlainObject(scale)) throw badRequest('the body of the request must be a Scale object');
  if (scale.kind !== 'Scale' || scale.apiVersion !== scaleApiVersion) {
    throw badRequest(
      `${String(scale.kind)} in version "${String(scale.apiVersion)}" cannot be handled as a Scale: the kind in the data does not match the expected kind Scale`,
    );
  }
  const typeError = scaleTypeError(scale);
  if (typeError !== undefined) throw badRequest(typeError);
  const replicas = isPlainObject(scale.spec) ? (scale.spec.replicas ?? undefined) : undefined;
  const errors: FieldError[] = [];
  if (typeof replicas === 'number' && replicas < 0) {
    errors.push(invalidField(fieldPath('spec', 'replicas'), replicas, 'must be greater than or equal to 0'));
  }
  const name = isPlainObject(scale.metadata) ? scale.metadata.name : undefined;
  if (errors.length) throw invalid('Scale', 'autoscaling', typeof name === 'string' ? name : '', errors);
  return withValueAt(object, paths.specReplicas, replicas ?? 0);
}
