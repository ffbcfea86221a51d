/**
 * The `cairn.dev/v1alpha1` kinds, exported as the `v1alpha1` namespace
 * (`v1alpha1.Pipeline`): `spec.parallelism`, `spec.runnerClass`, a step's `run` and
 * `status.ready` where v1 has `replicas`, `runnerClassName`, `command` and conditions.
 */
import type { components } from './generated/cairn-dev-v1alpha1.js';

type Schemas = components['schemas'];

/** A Pipeline as v1alpha1 serves it. */
export type Pipeline = Schemas['dev.cairn.v1alpha1.Pipeline'];
/** A v1alpha1 Pipeline's desired state. */
export type PipelineSpec = NonNullable<Pipeline['spec']>;
/** A v1alpha1 Pipeline's observed state. */
export type PipelineStatus = NonNullable<Pipeline['status']>;
/** A list of v1alpha1 Pipelines. */
export type PipelineList = Schemas['dev.cairn.v1alpha1.PipelineList'];
/** A RunnerClass as v1alpha1 serves it. */
export type RunnerClass = Schemas['dev.cairn.v1alpha1.RunnerClass'];
/** A list of v1alpha1 RunnerClasses. */
export type RunnerClassList = Schemas['dev.cairn.v1alpha1.RunnerClassList'];
