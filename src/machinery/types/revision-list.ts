/**
 * RevisionList: what an object's `history` subresource answers, in the group-version of
 * the request, for any kind. Each item is one retained revision — the write that made it
 * (its resourceVersion, time, operation, subresource, field manager and user) and the
 * object as that write left it, embedded as kube embeds objects (a RawExtension: the
 * object's own JSON, or its own enveloped message in protobuf). The kind is the same for
 * every resource of a group-version, as a Scale is for every scalable one.
 */
import type { JsonSchema } from '../json-schema.js';
import { componentRefPrefix } from '../json-schema.js';
import type { KubeObject, ObjectMeta } from '../meta/object.js';
import type { ListMeta } from './partial-object-metadata.js';
import { metaSchemaNames } from './meta-schemas.js';
import type { TableColumn } from './table.js';

/** The kind of a history read's answer. */
export const revisionListKind = 'RevisionList';

/** The verb of the request that wrote a revision, as audit names it. */
export type RevisionOperation = 'create' | 'update' | 'patch' | 'apply' | 'delete';

/** One revision of an object, in its JSON form. */
export interface RevisionItem {
  readonly resourceVersion: string;
  /** When it was written, RFC 3339. */
  readonly time: string;
  /** '' for revisions written before operations were recorded. */
  readonly operation: RevisionOperation | '';
  /** 'status' or 'scale' for those subresources' writes; '' otherwise. */
  readonly subresource: string;
  readonly fieldManager: string;
  readonly user: string;
  /** The object as the revision left it (as it was deleted, for a delete). */
  readonly object: KubeObject;
}

/** A page of revisions, newest first. */
export interface RevisionList {
  readonly apiVersion: string;
  readonly kind: typeof revisionListKind;
  readonly metadata: ListMeta;
  readonly items: readonly RevisionItem[];
}

/** kube's runtime.RawExtension: how an object of any kind is embedded in another. */
export const rawExtensionSchemaName = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

const rawExtensionSchema: JsonSchema = {
  type: 'object',
  description: 'RawExtension is used to hold extensions in external versions: here, an object of any kind, with its apiVersion and kind.',
  'x-kubernetes-embedded-resource': true,
  'x-kubernetes-preserve-unknown-fields': true,
};

/** `dev.cairn.v1`: the prefix of a group-version's component names, as the group's kinds are named. */
export function componentPrefix(group: string, version: string): string {
  return `${group.split('.').reverse().join('.')}.${version}`;
}

/** The component names of a group-version's Revision and RevisionList. */
export function revisionSchemaNames(group: string, version: string): { readonly revision: string; readonly list: string } {
  const prefix = componentPrefix(group, version);
  return { revision: `${prefix}.Revision`, list: `${prefix}.${revisionListKind}` };
}

const ref = (name: string): JsonSchema => ({ allOf: [{ $ref: `${componentRefPrefix}${name}` }] });
const str = (description: string): JsonSchema => ({ type: 'string', description });

/** The OpenAPI component schemas of a group-version's Revision and RevisionList (and of RawExtension, which they embed). */
export function revisionSchemas(group: string, version: string): Record<string, JsonSchema> {
  const names = revisionSchemaNames(group, version);
  return {
    [rawExtensionSchemaName]: rawExtensionSchema,
    [names.revision]: {
      type: 'object',
      description: 'Revision is one retained state of an object: the write that made it, and the object as it left it.',
      required: ['resourceVersion', 'time', 'object'],
      properties: {
        resourceVersion: str('The resourceVersion the write gave the object (of its deletion, for a delete).'),
        time: { type: 'string', format: 'date-time', description: 'When the write was committed, RFC 3339.' },
        operation: str('The verb of the request that wrote the revision: create, update, patch, apply or delete; empty when not recorded.'),
        subresource: str('The subresource the write went through (status, scale); empty for the object itself.'),
        fieldManager: str('The field manager of the write; empty for a delete.'),
        user: str('The user of the request that wrote the revision, as authenticated (and audited); empty for the server’s own writes.'),
        object: { ...ref(rawExtensionSchemaName), description: 'The object as the write left it, in the version of the request.' },
      },
    },
    [names.list]: {
      type: 'object',
      description: 'RevisionList is the retained history of one object, newest first.',
      required: ['items'],
      properties: {
        apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
        items: { type: 'array', items: { $ref: `${componentRefPrefix}${names.revision}` }, description: 'The revisions, newest first.' },
        kind: str('Kind is a string value representing the REST resource this object represents.'),
        metadata: {
          ...ref(metaSchemaNames.listMeta),
          description: 'Standard list metadata: the resourceVersion read at, and the continue token of the next page.',
        },
      },
      'x-kubernetes-group-version-kind': [{ group, version, kind: revisionListKind }],
    },
  };
}

/** A column of a revision's own fields. */
const revisionColumn = (name: string, type: TableColumn['type'], description: string, field: keyof RevisionItem): TableColumn => ({
  name,
  type,
  description,
  priority: 0,
  cell: (row) => (row as unknown as RevisionItem)[field] ?? null,
});

/** REVISION, TIME, OPERATION, MANAGER, USER. */
const ownColumns: readonly TableColumn[] = [
  revisionColumn('Revision', 'string', 'The resourceVersion of the revision.', 'resourceVersion'),
  revisionColumn('Time', 'date', 'When the revision was written.', 'time'),
  {
    ...revisionColumn('Operation', 'string', 'The verb (and subresource) that wrote the revision.', 'operation'),
    cell: (row) => operationCell(row as unknown as RevisionItem),
  },
  revisionColumn('Manager', 'string', 'The field manager of the write.', 'fieldManager'),
  revisionColumn('User', 'string', 'The user who wrote the revision.', 'user'),
];

/** `update`, or `update status` for a write through the status subresource. */
function operationCell(item: RevisionItem): string {
  return item.subresource ? `${item.operation} ${item.subresource}` : item.operation;
}

/** The columns of a Table of revisions: the revision's own, then `kindColumns` read from each revision's object. */
export function revisionTableColumns(kindColumns: readonly TableColumn[]): TableColumn[] {
  return [...ownColumns, ...kindColumns.map((column) => ({ ...column, cell: (row: KubeObject) => column.cell((row as unknown as RevisionItem).object) }))];
}

/** What a Table row of a revision carries as its object's metadata: its object's. */
export function revisionRowMetadata(row: KubeObject): ObjectMeta | undefined {
  return (row as unknown as RevisionItem).object.metadata;
}

/** A RevisionList with each object `convert`ed (to the request's version), the list a copy. */
export function convertRevisions(list: RevisionList, apiVersion: string, convert: (object: KubeObject) => KubeObject): RevisionList {
  return { ...list, apiVersion, items: list.items.map((item) => ({ ...item, object: convert(item.object) })) };
}
