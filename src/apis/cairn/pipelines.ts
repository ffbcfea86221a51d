/**
 * Pipelines: namespaced, N parallel runners executing steps.
 */
import type { ApiResource } from '../api-resource.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta/object.js';
import { groupName } from './group-name.js';
import { ageColumn, cellAt, nameColumn } from './printer-columns.js';
import { kindStrategy } from './strategy.js';
import { defaultPipeline } from './v1/defaults.js';
import { pipelineSchema, v1SchemaNames } from './v1/schemas.js';
import { validatePipeline } from './validation.js';

const pipelineSelectableFields = ['spec.runnerClassName', 'status.phase'] as const;

/** A Pipeline's step names: the streams of its log. */
function stepNames(pipeline: KubeObject): string[] {
  const steps = isPlainObject(pipeline.spec) ? pipeline.spec.steps : undefined;
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step: unknown) => (isPlainObject(step) && typeof step.name === 'string' ? [step.name] : []));
}

/** The Pipeline resource. */
export const pipelines: ApiResource = {
  group: groupName,
  plural: 'pipelines',
  singular: 'pipeline',
  kind: 'Pipeline',
  listKind: 'PipelineList',
  namespaced: true,
  shortNames: ['pl'],
  categories: ['cairn'],
  versions: [{ version: 'v1', schema: pipelineSchema, schemaName: v1SchemaNames.pipeline, defaults: defaultPipeline }],
  preferredVersion: 'v1',
  storageVersion: 'v1',
  strategy: kindStrategy({
    validate: validatePipeline,
    namespaced: true,
    selectableFields: pipelineSelectableFields,
    apiVersions: [`${groupName}/v1`],
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
