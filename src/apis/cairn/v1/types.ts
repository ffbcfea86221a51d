/**
 * The cairn.dev/v1 kinds as TypeScript types: the hub every other version converts through.
 */
import type { ObjectMeta } from '../../../machinery/meta/object.js';

export interface EnvVar {
  name: string;
  value?: string;
}

export interface Step {
  name: string;
  image?: string;
  command?: string[];
  env?: EnvVar[];
}

export interface PipelineSpec {
  runnerClassName?: string;
  replicas?: number;
  paused?: boolean;
  steps?: Step[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface PipelineStatus {
  phase?: 'Pending' | 'Running' | 'Paused' | 'Failed';
  replicas?: number;
  readyReplicas?: number;
  selector?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface Pipeline {
  apiVersion: 'cairn.dev/v1';
  kind: 'Pipeline';
  metadata?: ObjectMeta;
  spec?: PipelineSpec;
  status?: PipelineStatus;
}
