/** cairn.dev/v1beta1: v1's fields, defaults and columns under another apiVersion. */
import type { CairnVersion } from '../group-version.js';
import { sameFields } from '../object-fields.js';
import { v1 } from '../v1/register.js';
import { pipelineSchema, runnerClassSchema, v1beta1SchemaNames } from './schemas.js';

/** v1beta1 has v1's fields: the conversion only changes the apiVersion. */
const conversion = sameFields('v1beta1');

export const v1beta1: CairnVersion = {
  version: 'v1beta1',
  pipelines: { ...v1.pipelines, version: 'v1beta1', schema: pipelineSchema, schemaName: v1beta1SchemaNames.pipeline, ...conversion },
  runnerClasses: { version: 'v1beta1', schema: runnerClassSchema, schemaName: v1beta1SchemaNames.runnerClass, ...conversion },
};
