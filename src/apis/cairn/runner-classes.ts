/**
 * RunnerClasses: cluster-scoped classes of runners.
 */
import type { ApiResource } from '../api-resource.js';
import { groupName } from './group-name.js';
import { ageColumn, cellAt, nameColumn } from './printer-columns.js';
import { kindStrategy } from './strategy.js';
import { runnerClassSchema, v1SchemaNames } from './v1/schemas.js';
import { validateRunnerClass } from './validation.js';

/** The RunnerClass resource. */
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
  preferredVersion: 'v1',
  storageVersion: 'v1',
  strategy: kindStrategy({ validate: validateRunnerClass, namespaced: false, selectableFields: [], apiVersions: [`${groupName}/v1`] }),
  printerColumns: [
    nameColumn,
    { name: 'Image', type: 'string', description: 'Default runner image.', priority: 0, cell: cellAt('spec.image') },
    { name: 'MaxReplicas', type: 'integer', description: 'Upper bound of replicas.', priority: 0, cell: cellAt('spec.maxReplicas') },
    ageColumn,
  ],
  selectableFields: [],
  subresources: { status: true },
};
