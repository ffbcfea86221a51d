/**
 * The cairn.dev/v1beta1 kinds as TypeScript types: the fields of v1, under their own apiVersion.
 */
import type { Pipeline as V1Pipeline } from '../v1/types.js';

export type { Condition, EnvVar, PipelineSpec, PipelineStatus, Step } from '../v1/types.js';

export interface Pipeline extends Omit<V1Pipeline, 'apiVersion'> {
  apiVersion: 'cairn.dev/v1beta1';
}
