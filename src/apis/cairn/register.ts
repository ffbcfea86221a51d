/**
 * The cairn.dev group: its resources, versions, printer columns and strategies.
 */
import type { ApiGroup, ApiResource, PrinterColumn } from '../api-resource.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { defaultPipeline } from './v1/defaults.js';
import { pipelineSchema, runnerClassSchema, v1SchemaNames } from './v1/schemas.js';
import { kindStrategy, stringAt } from './strategy.js';
import { validatePipeline, validateRunnerClass } from './validation.js';

/** The group's name. */
export const groupName = 'cairn.dev';

const numberAt = (object: KubeObject, section: 'spec' | 'status', field: string): number | null => {
  const part = object[section];
  const value = isPlainObject(part) ? part[field] : undefined;
  return typeof value === 'number' ? value : null;
};
const nameColumn: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (o) => stringAt(o, 'metadata.name'),
};
const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o) => stringAt(o, 'metadata.creationTimestamp'),
};

const pipelineSelectableFields = ['spec.runnerClassName', 'status.phase'] as const;

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
    { name: 'RunnerClass', type: 'string', description: 'The RunnerClass of the Pipeline.', priority: 0, cell: (o) => stringAt(o, 'spec.runnerClassName') },
    { name: 'Replicas', type: 'integer', description: 'Desired number of runners.', priority: 0, cell: (o) => numberAt(o, 'spec', 'replicas') },
    { name: 'Ready', type: 'integer', description: 'Number of ready runners.', priority: 0, cell: (o) => numberAt(o, 'status', 'readyReplicas') },
    { name: 'Phase', type: 'string', description: 'Phase of the Pipeline.', priority: 0, cell: (o) => stringAt(o, 'status.phase') },
    ageColumn,
  ],
  selectableFields: pipelineSelectableFields,
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
    { name: 'Image', type: 'string', description: 'Default runner image.', priority: 0, cell: (o) => stringAt(o, 'spec.image') },
    { name: 'MaxReplicas', type: 'integer', description: 'Upper bound of replicas.', priority: 0, cell: (o) => numberAt(o, 'spec', 'maxReplicas') },
    ageColumn,
  ],
  selectableFields: [],
};

/** The cairn.dev group as served. */
export const cairnGroup: ApiGroup = {
  name: groupName,
  versions: ['v1'],
  resources: [pipelines, runnerClasses],
};
