/**
 * meta.k8s.io Table: what `kubectl get` prints. Columns come from the resource's
 * printer columns; `date` cells become ages, as kube's table convertor renders them.
 */
import { humanDuration } from '../duration.js';
import type { KubeObject } from '../meta/object.js';
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

/** The columns kube's default table convertor prints for kinds without printer columns (the Scale subresource). */
export const defaultTableColumns: readonly TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace.',
    priority: 0,
    cell: (object) => object.metadata?.name ?? null,
  },
  {
    name: 'Created At',
    type: 'date',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
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
      return partialObjectMetadata(object.metadata, options.version);
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
