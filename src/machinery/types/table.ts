/**
 * meta.k8s.io Table: what `kubectl get` prints. Columns come from the resource's
 * printer columns; `date` cells become ages, as kube's table convertor renders them.
 */
import { humanDuration } from '../duration.js';
import type { KubeObject, ObjectMeta } from '../meta/object.js';
import { partialObjectMetadata, type ListMeta, type MetaVersion } from './partial-object-metadata.js';

/** A column of a Table and how to read its cell from an object. */
export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly format?: string;
  readonly description: string;
  /** 0 for the default view, 1 for `-o wide` only. */
  readonly priority: number;
  readonly cell: (object: KubeObject) => unknown;
}

/**
 * ObjectMeta's field descriptions (apimachinery's `metav1.ObjectMeta{}.SwaggerDoc()`), which
 * kube's tables quote whole: every kind's NAME column, the default columns' both.
 */
export const objectMetaDescriptions = Object.freeze({
  name: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  creationTimestamp:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
});

/** The columns kube's default table convertor prints for kinds without printer columns (the Scale subresource). */
export const defaultTableColumns: readonly TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: objectMetaDescriptions.name,
    priority: 0,
    cell: (object) => object.metadata?.name ?? null,
  },
  {
    name: 'Created At',
    type: 'date',
    description: objectMetaDescriptions.creationTimestamp,
    priority: 0,
    cell: (object) => object.metadata?.creationTimestamp ?? null,
  },
];

/** `includeObject`: what each row carries besides its cells. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** How to build a Table. */
export interface TableOptions {
  readonly version: MetaVersion;
  readonly includeObject: IncludeObject;
  /** Leave out columnDefinitions (every watch event after the first). */
  readonly noHeaders?: boolean;
  /** The clock ages are measured against. */
  readonly now?: number;
  /** The metadata a row's PartialObjectMetadata carries, when a row is no object of its own (an item of a list kind): the row's `metadata` otherwise. */
  readonly rowMetadata?: (row: KubeObject) => ObjectMeta | undefined;
}

function cellOf(column: TableColumn, object: KubeObject, now: number): unknown {
  const value = column.cell(object);
  if (value === undefined || value === null) return null;
  if (column.type === 'date') {
    const time = typeof value === 'string' ? Date.parse(value) : NaN;
    return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
  }
  return value;
}

function rowObject(object: KubeObject, options: TableOptions): unknown {
  switch (options.includeObject) {
    case 'None':
      return null;
    case 'Object':
      return object;
    case 'Metadata':
      return partialObjectMetadata(options.rowMetadata ? options.rowMetadata(object) : object.metadata, options.version);
  }
}

/** A Table of `objects`, one row each. */
export function toTable(columns: readonly TableColumn[], objects: readonly KubeObject[], listMeta: ListMeta, options: TableOptions) {
  const now = options.now ?? Date.now();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: listMeta,
    columnDefinitions: options.noHeaders
      ? null
      : columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
    rows: objects.map((object) => ({ cells: columns.map((c) => cellOf(c, object, now)), object: rowObject(object, options) })),
  };
}
