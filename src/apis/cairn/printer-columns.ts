/**
 * The printer columns cairn.dev's kinds share, and how a cell is read.
 */
import type { PrinterColumn } from '../api-resource.js';
import { valueAt, type KubeObject } from '../../machinery/meta/object.js';

/** Reads a printer cell at a dotted path; null when absent (kubectl prints an empty cell). */
export const cellAt =
  (path: string) =>
  (object: KubeObject): unknown =>
    valueAt(object, path) ?? null;

/** NAME, as every kind's first column. */
export const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: cellAt('metadata.name'),
};

/** AGE, as every kind's last column. */
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: cellAt('metadata.creationTimestamp'),
};
