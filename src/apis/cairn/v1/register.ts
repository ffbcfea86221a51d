/** cairn.dev/v1, the storage version and hub: no conversion. */
import type { CairnVersion } from '../group-version.js';
import { pipelineColumns } from '../printer-columns.js';
import { defaultPipeline } from './defaults.js';
import { pipelineSchema, runnerClassSchema, v1SchemaNames } from './schemas.js';

export const v1: CairnVersion = {
  version: 'v1',
  pipelines: {
    version: 'v1',
    schema: pipelineSchema,
    schemaName: v1SchemaNames.pipeline,
    defaults: defaultPipeline,
    printerColumns: pipelineColumns({ runnerClass: 'spec.runnerClassName', replicas: 'spec.replicas' }),
  },
  runnerClasses: { version: 'v1', schema: runnerClassSchema, schemaName: v1SchemaNames.runnerClass },
};
