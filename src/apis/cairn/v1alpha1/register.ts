/** cairn.dev/v1alpha1: Pipelines with the first release's field names, converted through v1. */
import type { CairnVersion } from '../group-version.js';
import { sameFields } from '../object-fields.js';
import { pipelineColumns } from '../printer-columns.js';
import { pipelineFieldLabel, pipelineFieldPath, pipelineFromStorage, pipelineToStorage, specAnnotation, statusAnnotation } from './conversion.js';
import { defaultPipeline } from './defaults.js';
import { pipelineSchema, runnerClassSchema, v1alpha1SchemaNames } from './schemas.js';

export const v1alpha1: CairnVersion = {
  version: 'v1alpha1',
  pipelines: {
    version: 'v1alpha1',
    schema: pipelineSchema,
    schemaName: v1alpha1SchemaNames.pipeline,
    defaults: defaultPipeline,
    toStorage: pipelineToStorage,
    fromStorage: pipelineFromStorage,
    fieldLabel: pipelineFieldLabel,
    fieldPath: pipelineFieldPath,
    conversionAnnotations: [specAnnotation, statusAnnotation],
    printerColumns: pipelineColumns({ runnerClass: 'spec.runnerClass', replicas: 'spec.parallelism' }),
  },
  runnerClasses: {
    version: 'v1alpha1',
    schema: runnerClassSchema,
    schemaName: v1alpha1SchemaNames.runnerClass,
    // A RunnerClass has the same fields in every version.
    ...sameFields('v1alpha1'),
  },
};
