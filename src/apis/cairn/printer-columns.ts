/**
 * The printer columns of cairn.dev's kinds, and how a cell is read. A version that
 * renames a field its columns show gives its own paths.
 */
import type { PrinterColumn } from '../api-resource.js';
import { valueAt, type KubeObject } from '../../machinery/meta/object.js';
import { objectMetaDescriptions } from '../../machinery/types/table.js';

/** Reads a printer cell at a dotted path; null when absent (kubectl prints an empty cell). */
export const cellAt =
  (path: string) =>
  (object: KubeObject): unknown =>
    valueAt(object, path) ?? null;

/** A column of the default view showing the field at the dotted `path`. */
const column = (name: string, type: PrinterColumn['type'], description: string, path: string, format?: string): PrinterColumn => ({
  name,
  type,
  ...(format === undefined ? {} : { format }),
  description,
  priority: 0,
  jsonPath: `.${path}`,
  cell: cellAt(path),
});

/** NAME, as every kind's first column: kube describes it with ObjectMeta's whole description, for built-in and custom kinds alike. */
const nameColumn = column('Name', 'string', objectMetaDescriptions.name, 'metadata.name', 'name');

/** AGE, as every kind's last column. */
const ageColumn = column(
  'Age',
  'date',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
  'metadata.creationTimestamp',
);

/** Where a version keeps the fields a Pipeline's columns show. */
export interface PipelineColumnPaths {
  readonly runnerClass: string;
  readonly replicas: string;
}

/** NAME, RUNNERCLASS, REPLICAS, READY, PHASE, AGE. */
export function pipelineColumns(paths: PipelineColumnPaths): readonly PrinterColumn[] {
  return [
    nameColumn,
    column('RunnerClass', 'string', 'The RunnerClass of the Pipeline.', paths.runnerClass),
    column('Replicas', 'integer', 'Desired number of runners.', paths.replicas),
    column('Ready', 'integer', 'Number of ready runners.', 'status.readyReplicas'),
    column('Phase', 'string', 'Phase of the Pipeline.', 'status.phase'),
    ageColumn,
  ];
}

/** NAME, IMAGE, MAXREPLICAS, AGE: the same in every version. */
export const runnerClassColumns: readonly PrinterColumn[] = [
  nameColumn,
  column('Image', 'string', 'Default runner image.', 'spec.image'),
  column('MaxReplicas', 'integer', 'Upper bound of replicas.', 'spec.maxReplicas'),
  ageColumn,
];
