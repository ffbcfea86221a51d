/**
 * The cairn.dev/v1alpha1 kinds as TypeScript types. A Pipeline's spec names fields as
 * the first release did (`parallelism`, `runnerClass`), a step runs one shell string,
 * and the status tells readiness as one boolean; what v1 added travels in annotations.
 */
import type { ObjectMeta } from '../../../machinery/meta/object.js';

export interface Step {
  name: string;
  image?: string;
  /** One shell string: the step runs `sh -c <run>`. */
  run?: string;
}

export interface PipelineSpec {
  runnerClass?: string;
  parallelism?: number;
  steps?: Step[];
}

export interface PipelineStatus {
  phase?: 'Pending' | 'Running' | 'Paused' | 'Failed';
  replicas?: number;
  readyReplicas?: number;
  selector?: string;
  observedGeneration?: number;
  /** Whether every runner is ready (v1's Ready condition). */
  ready?: boolean;
}

export interface Pipeline {
  apiVersion: 'cairn.dev/v1alpha1';
  kind: 'Pipeline';
  metadata?: ObjectMeta;
  spec?: PipelineSpec;
  status?: PipelineStatus;
}
