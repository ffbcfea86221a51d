/**
 * RunnerClasses: cluster-scoped classes of runners.
 */
import type { ApiResource } from '../api-resource.js';
import { groupName, storageVersion } from './group-name.js';
import { runnerClassColumns } from './printer-columns.js';
import { kindStrategy } from './strategy.js';
import { validateRunnerClass, validateRunnerClassName } from './validation.js';
import { servedVersions } from './versions.js';

/** The RunnerClass resource. */
export const runnerClasses: ApiResource = {
  group: groupName,
  plural: 'runnerclasses',
  singular: 'runnerclass',
  kind: 'RunnerClass',
  listKind: 'RunnerClassList',
  namespaced: false,
  validateName: validateRunnerClassName,
  shortNames: ['rc'],
  categories: ['cairn'],
  versions: servedVersions.map((v) => v.runnerClasses),
  preferredVersion: servedVersions[0].version,
  storageVersion,
  strategy: kindStrategy({
    validate: validateRunnerClass,
    namespaced: false,
    selectableFields: [],
    apiVersions: servedVersions.map((v) => `${groupName}/${v.version}`),
  }),
  printerColumns: runnerClassColumns,
  selectableFields: [],
  subresources: { status: true, history: true },
  // A fresh server has a class for Pipelines to name, as the README's first one does (`standard`).
  bootstrapObjects: [{ apiVersion: `${groupName}/${storageVersion}`, kind: 'RunnerClass', metadata: { name: 'standard' }, spec: { image: 'alpine:3.20' } }],
};
