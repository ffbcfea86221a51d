/**
 * The printer columns of cairn.dev's kinds, and how a cell is read. A version that
 * renames a field its columns show gives its own paths.
 */
import type { PrinterColumn } from '../api-resource.js';
import { valueAt, type KubeObject } from '../../machinery/meta/object.js';

/** Reads a printer cell at a dotted path; null when absent (kubectl prints an empty cell). */
export const cellAt =
  (path: string) =>
  (object: KubeObject): unknown =>
    valueAt(object, path) ?? null;

/** NAME, as every kind's first column. */
const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: cellAt('metadata.name'),
};

/** AGE, as every kind's last column. */
const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: cellAt('metadata.creationTimestamp'),
};

/** Where a version keeps the fields a Pipeline's columns show. */
export interface PipelineColumnPaths {
  readonly runnerClass: string;
  readonly replicas: string;
}

/** NAME, RUNNERCLASS, REPLICAS, READY, PHASE, AGE. */
export function pipelineColumns(paths: PipelineColumnPaths): readonly PrinterColumn[] {
  return [
    nameColumn,
    { name: 'RunnerClass', type: 'string', description: 'The RunnerClass of the Pipeline.', priority: 0, cell: cellAt(paths.runnerClass) },
    { name: 'Replicas', type: 'integer', description: 'Desired number of runners.', priority: 0, cell: cellAt(paths.replicas) },
    { name: 'Ready', type: 'integer', description: 'Number of ready runners.', priority: 0, cell: cellAt('status.readyReplicas') },
    { name: 'Phase', type: 'string', description: 'Phase of the Pipeline.', priority: 0, cell: cellAt('status.phase') },
    ageColumn,
  ];
}

/** NAME, IMAGE, MAXREPLICAS, AGE: the same in every version. */
export const runnerClassColumns: readonly PrinterColumn[] = [
  nameColumn,
  { name: 'Image', type: 'string', description: 'Default runner image.', priority: 0, cell: cellAt('spec.image') },
  { name: 'MaxReplicas', type: 'integer', description: 'Upper bound of replicas.', priority: 0, cell: cellAt('spec.maxReplicas') },
  ageColumn,
];
