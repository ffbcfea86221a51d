/**
 * Pipelines: namespaced, N parallel runners executing steps.
 */
import type { ApiResource } from '../api-resource.js';
import { isPlainObject, type KubeObject } from '../../machinery/meta/object.js';
import { groupName, storageVersion } from './group-name.js';
import { kindStrategy } from './strategy.js';
import { validatePipeline } from './validation.js';
import { v1 } from './v1/register.js';
import { servedVersions } from './versions.js';

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
  versions: servedVersions.map((v) => v.pipelines),
  preferredVersion: servedVersions[0].version,
  storageVersion,
  strategy: kindStrategy({
    validate: validatePipeline,
    namespaced: true,
    selectableFields: pipelineSelectableFields,
    apiVersions: servedVersions.map((v) => `${groupName}/${v.version}`),
  }),
  printerColumns: v1.pipelines.printerColumns!,
  selectableFields: pipelineSelectableFields,
  subresources: {
    status: true,
    scale: { specReplicas: 'spec.replicas', statusReplicas: 'status.replicas', labelSelector: 'status.selector' },
    log: { streamParameter: 'step', streamsOf: stepNames },
    history: true,
  },
};
