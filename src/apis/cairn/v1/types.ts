/**
 * cairn.dev/v1 types: the hub version, and the version objects are stored in.
 */
import type { ObjectMeta } from '../../../machinery/object.js';

/** An environment variable of a step. */
export interface EnvVar {
  name: string;
  value?: string;
}

/** One step a Pipeline's runners execute. */
export interface Step {
  name: string;
  image?: string;
  command?: string[];
  env?: EnvVar[];
}

/** PipelineSpec is the desired state of a Pipeline. */
export interface PipelineSpec {
  runnerClassName?: string;
  replicas?: number;
  paused?: boolean;
  steps?: Step[];
}

/** A `metav1.Condition`. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** PipelineStatus is the observed state of a Pipeline. */
export interface PipelineStatus {
  phase?: 'Pending' | 'Running' | 'Paused' | 'Failed';
  replicas?: number;
  readyReplicas?: number;
  selector?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

/** A long-running processing pipeline: N parallel runners execute its steps. */
export interface Pipeline {
  apiVersion: 'cairn.dev/v1';
  kind: 'Pipeline';
  metadata: ObjectMeta;
  spec?: PipelineSpec;
  status?: PipelineStatus;
}

/** RunnerClassSpec describes a class of runners. */
export interface RunnerClassSpec {
  image?: string;
  maxReplicas?: number;
}

/** RunnerClassStatus counts the Pipelines using the class. */
export interface RunnerClassStatus {
  pipelines?: number;
}

/** A cluster-scoped class of runners that Pipelines reference by name. */
export interface RunnerClass {
  apiVersion: 'cairn.dev/v1';
  kind: 'RunnerClass';
  metadata: ObjectMeta;
  spec?: RunnerClassSpec;
  status?: RunnerClassStatus;
}
