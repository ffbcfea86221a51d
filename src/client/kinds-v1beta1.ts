/**
 * The `cairn.dev/v1beta1` kinds, exported as the `v1beta1` namespace
 * (`v1beta1.Pipeline`): v1's fields under the same names.
 */
import type { components } from './generated/cairn-dev-v1beta1.js';

type Schemas = components['schemas'];

/** A Pipeline as v1beta1 serves it. */
export type Pipeline = Schemas['dev.cairn.v1beta1.Pipeline'];
/** A v1beta1 Pipeline's desired state. */
export type PipelineSpec = NonNullable<Pipeline['spec']>;
/** A v1beta1 Pipeline's observed state. */
export type PipelineStatus = NonNullable<Pipeline['status']>;
/** A list of v1beta1 Pipelines. */
export type PipelineList = Schemas['dev.cairn.v1beta1.PipelineList'];
/** A RunnerClass as v1beta1 serves it. */
export type RunnerClass = Schemas['dev.cairn.v1beta1.RunnerClass'];
/** A list of v1beta1 RunnerClasses. */
export type RunnerClassList = Schemas['dev.cairn.v1beta1.RunnerClassList'];
