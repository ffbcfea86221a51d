/**
 * OpenAPI v3 component schemas of the meta.k8s.io/v1 types every resource refers
 * to (ObjectMeta, ListMeta, Status, WatchEvent, DeleteOptions) and of the other
 * representations the server answers with (Table, PartialObjectMetadata), named as
 * kube-apiserver names them so clients resolve them the same way.
 */
import type { JsonSchema } from '../json-schema.js';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** Component names of the meta types. */
export const metaSchemaNames = {
  objectMeta: `${meta}.ObjectMeta`,
  listMeta: `${meta}.ListMeta`,
  status: `${meta}.Status`,
  watchEvent: `${meta}.WatchEvent`,
  deleteOptions: `${meta}.DeleteOptions`,
  patch: `${meta}.Patch`,
  table: `${meta}.Table`,
  partialObjectMetadata: `${meta}.PartialObjectMetadata`,
} as const;

const ref = (name: string): JsonSchema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });
const str = (description: string): JsonSchema => ({ type: 'string', description });
const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const stringMap = (description: string): JsonSchema => ({ type: 'object', additionalProperties: { type: 'string' }, description });

/** The meta.k8s.io/v1 component schemas. */
export const metaSchemas: Readonly<Record<string, JsonSchema>> = {
  [`${meta}.ObjectMeta`]: {
    type: 'object',
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    properties: {
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ),
      creationTimestamp: time(
        'CreationTimestamp is a timestamp representing the server time when this object was created. Populated by the system. Read-only.',
      ),
      deletionGracePeriodSeconds: {
        type: 'integer',
        format: 'int64',
        description: 'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
      },
      deletionTimestamp: time(
        'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. Populated by the system when a graceful deletion is requested. Read-only.',
      ),
      finalizers: {
        type: 'array',
        items: { type: 'string' },
        description: 'Must be empty before the object is deleted from the registry.',
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
      generation: {
        type: 'integer',
        format: 'int64',
        description: 'A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.',
      },
      labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
      managedFields: {
        type: 'array',
        items: ref(`${meta}.ManagedFieldsEntry`),
        description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
        'x-kubernetes-list-type': 'atomic',
      },
      name: str('Name must be unique within a namespace. Cannot be updated.'),
      namespace: str('Namespace defines the space within which each name must be unique. Cannot be updated.'),
      ownerReferences: {
        type: 'array',
        items: ref(`${meta}.OwnerReference`),
        description: 'List of objects depended by this object.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      resourceVersion: str('An opaque value that represents the internal version of this object. Populated by the system. Read-only.'),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      uid: str('UID is the unique in time and space value for this object. Populated by the system. Read-only.'),
    },
  },
  [`${meta}.ManagedFieldsEntry`]: {
    type: 'object',
    description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    properties: {
      apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
      fieldsType: str('FieldsType is the discriminator for the different fields format and version.'),
      fieldsV1: {
        type: 'object',
        description: 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      manager: str('Manager is an identifier of the workflow managing these fields.'),
      operation: str('Operation is the type of operation which lead to this ManagedFieldsEntry being created.'),
      subresource: str('Subresource is the name of the subresource used to update that object.'),
      time: time('Time is the timestamp of when the ManagedFields entry was added.'),
    },
  },
  [`${meta}.OwnerReference`]: {
    type: 'object',
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: str('API version of the referent.'),
      blockOwnerDeletion: {
        type: 'boolean',
        description:
          'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
      },
      controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${meta}.ListMeta`]: {
    type: 'object',
    description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      continue: str('continue may be set if the user set a limit on the number of items returned.'),
      remainingItemCount: {
        type: 'integer',
        format: 'int64',
        description: 'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
      },
      resourceVersion: str("String that identifies the server's internal version of this object."),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    },
  },
  [`${meta}.Status`]: {
    type: 'object',
    description: "Status is a return value for calls that don't return other objects.",
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      code: { type: 'integer', format: 'int32', description: 'Suggested HTTP return code for this status, 0 if not set.' },
      details: ref(`${meta}.StatusDetails`),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      message: str('A human-readable description of the status of this operation.'),
      metadata: ref(`${meta}.ListMeta`),
      reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
      status: str('Status of the operation. One of: "Success" or "Failure".'),
    },
  },
  [`${meta}.StatusDetails`]: {
    type: 'object',
    description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    properties: {
      causes: {
        type: 'array',
        items: ref(`${meta}.StatusCause`),
        description: 'The Causes array includes more details associated with the StatusReason failure.',
        'x-kubernetes-list-type': 'atomic',
      },
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str('The name attribute of the resource associated with the status StatusReason.'),
      retryAfterSeconds: { type: 'integer', format: 'int32', description: 'If specified, the time in seconds before the operation should be retried.' },
      uid: str('UID of the resource.'),
    },
  },
  [`${meta}.StatusCause`]: {
    type: 'object',
    description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
    properties: {
      field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  },
  [`${meta}.WatchEvent`]: {
    type: 'object',
    description: 'Event represents a single event to a watched resource.',
    required: ['type', 'object'],
    properties: {
      object: {
        type: 'object',
        description:
          'Object is the object being watched: the object itself for ADDED/MODIFIED/DELETED, a Status for ERROR, a resourceVersion holder for BOOKMARK.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    },
  },
  [`${meta}.Preconditions`]: {
    type: 'object',
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    properties: {
      resourceVersion: str('Specifies the target ResourceVersion'),
      uid: str('Specifies the target UID.'),
    },
  },
  [`${meta}.DeleteOptions`]: {
    type: 'object',
    description: 'DeleteOptions may be provided when deleting an API object.',
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      dryRun: {
        type: 'array',
        items: { type: 'string' },
        description: 'When present, indicates that modifications should not be persisted.',
        'x-kubernetes-list-type': 'atomic',
      },
      gracePeriodSeconds: { type: 'integer', format: 'int64', description: 'The duration in seconds before the object should be deleted.' },
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      orphanDependents: { type: 'boolean', description: 'Deprecated: please use the PropagationPolicy.' },
      preconditions: ref(`${meta}.Preconditions`),
      propagationPolicy: str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
    },
  },
  [`${meta}.Table`]: {
    type: 'object',
    description:
      'Table is a tabular representation of a set of API resources. The server transforms the object into a set of preferred columns for quickly reviewing the objects.',
    required: ['columnDefinitions', 'rows'],
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      columnDefinitions: {
        type: 'array',
        items: ref(`${meta}.TableColumnDefinition`),
        description:
          'columnDefinitions describes each column in the returned items array. The number of cells per row will always match the number of column definitions.',
        'x-kubernetes-list-type': 'atomic',
      },
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      metadata: { ...ref(`${meta}.ListMeta`), description: 'Standard list metadata.' },
      rows: { type: 'array', items: ref(`${meta}.TableRow`), description: 'rows is the list of items in the table.', 'x-kubernetes-list-type': 'atomic' },
    },
  },
  [`${meta}.TableColumnDefinition`]: {
    type: 'object',
    description: 'TableColumnDefinition contains information about a column returned in the Table.',
    required: ['name', 'type', 'format', 'description', 'priority'],
    properties: {
      description: str('description is a human readable description of this column.'),
      format: str(
        "format is an optional OpenAPI type modifier for this column. A format modifies the type and imposes additional rules, like date or time formatting for a string. The 'name' format is applied to the primary identifier column which has type 'string' to assist in clients identifying column is the resource name.",
      ),
      name: str('name is a human readable name for the column.'),
      priority: {
        type: 'integer',
        format: 'int32',
        description:
          'priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a higher priority.',
      },
      type: str('type is an OpenAPI type definition for this column, such as number, integer, string, or array.'),
    },
  },
  [`${meta}.TableRow`]: {
    type: 'object',
    description: 'TableRow is an individual row in a table.',
    required: ['cells'],
    properties: {
      cells: {
        type: 'array',
        items: { type: 'object' },
        description:
          'cells will be as wide as the column definitions array and may contain strings, numbers, booleans, simple maps, lists, or null. See the type field of the column definition for a more detailed description.',
        'x-kubernetes-list-type': 'atomic',
      },
      conditions: {
        type: 'array',
        items: ref(`${meta}.TableRowCondition`),
        description: 'conditions describe additional status of a row that are relevant for a human user.',
        'x-kubernetes-list-type': 'atomic',
      },
      object: {
        ...ref('io.k8s.apimachinery.pkg.runtime.RawExtension'),
        description:
          'This field contains the requested additional information about each object based on the includeObject policy when requesting the Table: empty for None, the object for Object, and a PartialObjectMetadata for Metadata (the default).',
      },
    },
  },
  [`${meta}.TableRowCondition`]: {
    type: 'object',
    description: 'TableRowCondition allows a row to be marked with additional information.',
    required: ['type', 'status'],
    properties: {
      message: str('Human readable message indicating details about last transition.'),
      reason: str("(brief) machine readable reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.'),
      type: str("Type of row condition. The only defined value is 'Completed' indicating that the object this row represents has reached a completed state."),
    },
  },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    type: 'object',
    description: 'RawExtension holds an embedded object whose kind and apiVersion tell how to read it.',
  },
  [`${meta}.PartialObjectMetadata`]: {
    type: 'object',
    description:
      'PartialObjectMetadata is a generic representation of any object with ObjectMeta. It allows clients to get access to a particular ObjectMeta schema without knowing the details of the version.',
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      metadata: { ...ref(`${meta}.ObjectMeta`), description: "Standard object's metadata." },
    },
  },
  [`${meta}.Patch`]: {
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  },
};
