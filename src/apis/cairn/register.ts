/**
 * The cairn.dev group: its resources, versions, printer columns and strategies.
 */
import type { ApiGroup, ApiResource, PrinterColumn } from '../api-resource.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { defaultPipeline } from './v1/defaults.js';
import { pipelineSchema, runnerClassSchema, v1SchemaNames } from './v1/schemas.js';
import { kindStrategy } from './strategy.js';
import { validatePipeline, validateRunnerClass } from './validation.js';

/** The group's name. */
export const groupName = 'cairn.dev';

/** Reads a printer cell at a dotted path; null when absent (kubectl prints an empty cell). */
const cellAt =
  (path: string) =>
  (object: KubeObject): unknown => {
    let value: unknown = object;
    for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
    return value ?? null;
  };
const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: cellAt('metadata.name'),
};
const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: cellAt('metadata.creationTimestamp'),
};

const pipelineSelectableFields = ['spec.runnerClassName', 'status.phase'] as const;

/** A Pipeline's step names: the streams of its log. */
function stepNames(pipeline: KubeObject): string[] {
  const steps = isPlainObject(pipeline.spec) ? pipeline.spec.steps : undefined;
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step: unknown) => (isPlainObject(step) && typeof step.name === 'string' ? [step.name] : []));
}

/** Pipelines: namespaced, N parallel runners executing steps. */
export const pipelines: ApiResource = {
  group: groupName,
  plural: 'pipelines',
  singular: 'pipeline',
  kind: 'Pipeline',
  listKind: 'PipelineList',
  namespaced: true,
  shortNames: ['pl'],
  categories: ['cairn'],
  versions: [{ version: 'v1', schema: pipelineSchema, schemaName: v1SchemaNames.pipeline }],
  strategy: kindStrategy({
    defaults: defaultPipeline,
    validate: validatePipeline,
    namespaced: true,
    selectableFields: pipelineSelectableFields,
  }),
  printerColumns: [
    nameColumn,
    { name: 'RunnerClass', type: 'string', description: 'The RunnerClass of the Pipeline.', priority: 0, cell: cellAt('spec.runnerClassName') },
    { name: 'Replicas', type: 'integer', description: 'Desired number of runners.', priority: 0, cell: cellAt('spec.replicas') },
    { name: 'Ready', type: 'integer', description: 'Number of ready runners.', priority: 0, cell: cellAt('status.readyReplicas') },
    { name: 'Phase', type: 'string', description: 'Phase of the Pipeline.', priority: 0, cell: cellAt('status.phase') },
    ageColumn,
  ],
  selectableFields: pipelineSelectableFields,
  subresources: {
    status: true,
    scale: { specReplicas: 'spec.replicas', statusReplicas: 'status.replicas', labelSelector: 'status.selector' },
    log: { streamParameter: 'step', streamsOf: stepNames },
  },
};

/** RunnerClasses: cluster-scoped classes of runners. */
export const runnerClasses: ApiResource = {
  group: groupName,
  plural: 'runnerclasses',
  singular: 'runnerclass',
  kind: 'RunnerClass',
  listKind: 'RunnerClassList',
  namespaced: false,
  shortNames: ['rc'],
  categories: ['cairn'],
  versions: [{ version: 'v1', schema: runnerClassSchema, schemaName: v1SchemaNames.runnerClass }],
  strategy: kindStrategy({ defaults: () => {}, validate: validateRunnerClass, namespaced: false, selectableFields: [] }),
  printerColumns: [
    nameColumn,
    { name: 'Image', type: 'string', description: 'Default runner image.', priority: 0, cell: cellAt('spec.image') },
    { name: 'MaxReplicas', type: 'integer', description: 'Upper bound of replicas.', priority: 0, cell: cellAt('spec.maxReplicas') },
    ageColumn,
  ],
  selectableFields: [],
  subresources: { status: true },
};

/** The cairn.dev group as served. */
export const cairnGroup: ApiGroup = {
  name: groupName,
  versions: ['v1'],
  resources: [pipelines, runnerClasses],
};
