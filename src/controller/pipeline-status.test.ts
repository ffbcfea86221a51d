// The status the sample controller wants for a Pipeline: its ready-runner target and its conditions.
import { describe, expect, it } from 'vitest';
import type { Pipeline, PipelineStatus } from '../client/kinds.js';
import { desiredStatus, targetReadyReplicas } from './pipeline-status.js';

const earlier = '2026-01-01T00:00:00Z';
const now = new Date('2026-01-01T00:05:00.123Z');

function pipeline(spec: Pipeline['spec'], status?: PipelineStatus, generation = 3): Pipeline {
  return { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'ingest', namespace: 'default', generation }, spec, ...(status ? { status } : {}) };
}

const ready = (status: 'True' | 'False', reason: string, message: string, lastTransitionTime: string) => ({
  type: 'Ready',
  status,
  reason,
  message,
  lastTransitionTime,
  observedGeneration: 3,
});

describe('desiredStatus', () => {
  it.each([
    {
      name: 'a new Pipeline gets its first runner ready, and is not yet Ready',
      pipeline: pipeline({ replicas: 3 }),
      status: { phase: 'Pending', replicas: 3, readyReplicas: 1, conditions: [ready('False', 'Scaling', '1/3 ready', '2026-01-01T00:05:00Z')] },
    },
    {
      name: 'the last step makes it Running and Ready',
      pipeline: pipeline({ replicas: 3 }, { readyReplicas: 2, conditions: [ready('False', 'Scaling', '2/3 ready', earlier)] }),
      status: { phase: 'Running', replicas: 3, readyReplicas: 3, conditions: [ready('True', 'AllReplicasReady', '3/3 ready', '2026-01-01T00:05:00Z')] },
    },
    {
      name: 'scaling down moves one step and keeps lastTransitionTime while Ready stays False',
      pipeline: pipeline({ replicas: 1 }, { readyReplicas: 3, conditions: [ready('False', 'Scaling', '3/3 ready', earlier)] }),
      status: { phase: 'Pending', replicas: 1, readyReplicas: 2, conditions: [ready('False', 'Scaling', '2/1 ready', earlier)] },
    },
    {
      name: 'a settled Pipeline keeps its status',
      pipeline: pipeline({ replicas: 2 }, { readyReplicas: 2, conditions: [ready('True', 'AllReplicasReady', '2/2 ready', earlier)] }),
      status: { phase: 'Running', replicas: 2, readyReplicas: 2, conditions: [ready('True', 'AllReplicasReady', '2/2 ready', earlier)] },
    },
    {
      name: 'pausing stops the runners one step at a time and is never Ready',
      pipeline: pipeline({ replicas: 2, paused: true }, { readyReplicas: 2, conditions: [ready('True', 'AllReplicasReady', '2/2 ready', earlier)] }),
      status: { phase: 'Paused', replicas: 2, readyReplicas: 1, conditions: [ready('False', 'Paused', '1/2 ready', '2026-01-01T00:05:00Z')] },
    },
    {
      name: 'zero replicas are Ready at once',
      pipeline: pipeline({ replicas: 0 }),
      status: { phase: 'Running', replicas: 0, readyReplicas: 0, conditions: [ready('True', 'AllReplicasReady', '0/0 ready', '2026-01-01T00:05:00Z')] },
    },
    {
      name: 'replicas default to 1, as the server defaults them',
      pipeline: pipeline({}),
      status: { phase: 'Running', replicas: 1, readyReplicas: 1, conditions: [ready('True', 'AllReplicasReady', '1/1 ready', '2026-01-01T00:05:00Z')] },
    },
  ])('$name', ({ pipeline, status }) => {
    expect(desiredStatus(pipeline, now)).toEqual({ ...status, selector: 'cairn.dev/pipeline=ingest', observedGeneration: 3 });
  });

  it('keeps conditions of other types, in place', () => {
    const other = { type: 'Degraded', status: 'False' as const, reason: 'AsExpected', lastTransitionTime: earlier };
    const status = desiredStatus(
      pipeline({ replicas: 1 }, { readyReplicas: 1, conditions: [ready('True', 'AllReplicasReady', '1/1 ready', earlier), other] }),
      now,
    );
    expect(status.conditions).toEqual([ready('True', 'AllReplicasReady', '1/1 ready', earlier), other]);
  });

  it('targets spec.replicas, or no runner while paused', () => {
    expect(targetReadyReplicas(pipeline({ replicas: 4 }))).toBe(4);
    expect(targetReadyReplicas(pipeline({ replicas: 4, paused: true }))).toBe(0);
  });
});
