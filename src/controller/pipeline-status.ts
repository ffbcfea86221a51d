/**
 * What the controller wants a Pipeline's status to be, one tick later: a pure
 * function of the Pipeline and the time, so it is tested without a server.
 *
 * The runners are simulated: each tick moves `readyReplicas` one step toward the
 * target (`spec.replicas`, or 0 while paused, since pausing stops the runners).
 */
import type { Condition, Pipeline, PipelineStatus } from '../client/kinds.js';

/** The label every runner of a Pipeline carries; `status.selector` selects on it (an HPA reads it through `/scale`). */
export const pipelineLabel = 'cairn.dev/pipeline';

/** The number of ready runners the Pipeline's spec asks for. */
export function targetReadyReplicas(pipeline: Pipeline): number {
  return pipeline.spec?.paused ? 0 : (pipeline.spec?.replicas ?? 1);
}

/**
 * The status after one tick at `now`: `replicas`, `selector` and
 * `observedGeneration` follow the spec at once, `readyReplicas` moves one step, and
 * `phase` and the `Ready` condition describe the result. Conditions of other types
 * are kept.
 *
 * @example
 * desiredStatus({ ...pipeline, spec: { replicas: 3 }, status: { readyReplicas: 1 } }, now)
 * // → { phase: 'Pending', replicas: 3, readyReplicas: 2, conditions: [{ type: 'Ready', status: 'False', reason: 'Scaling', message: '2/3 ready', … }], … }
 */
export function desiredStatus(pipeline: Pipeline, now: Date): PipelineStatus {
  const current = pipeline.status ?? {};
  const replicas = pipeline.spec?.replicas ?? 1;
  const paused = pipeline.spec?.paused ?? false;
  const observed = current.readyReplicas ?? 0;
  const readyReplicas = observed + Math.sign(targetReadyReplicas(pipeline) - observed);
  const ready = !paused && readyReplicas === replicas;
  const generation = pipeline.metadata?.generation;
  const condition = readyCondition(
    current.conditions,
    {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      reason: paused ? 'Paused' : ready ? 'AllReplicasReady' : 'Scaling',
      message: `${readyReplicas}/${replicas} ready`,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    },
    now,
  );
  return {
    phase: paused ? 'Paused' : ready ? 'Running' : 'Pending',
    replicas,
    readyReplicas,
    selector: `${pipelineLabel}=${pipeline.metadata?.name ?? ''}`,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: withCondition(current.conditions ?? [], condition),
  };
}

/** `next`, with the previous Ready condition's lastTransitionTime unless its status flipped (kube's meta.SetStatusCondition). */
function readyCondition(conditions: readonly Condition[] | undefined, next: Condition, now: Date): Condition {
  const previous = conditions?.find((c) => c.type === next.type);
  const lastTransitionTime = previous?.status === next.status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339(now);
  return { ...next, lastTransitionTime };
}

/** `conditions` with `condition` in place of the one of its type (appended when absent), so the order stays stable. */
function withCondition(conditions: readonly Condition[], condition: Condition): Condition[] {
  const index = conditions.findIndex((c) => c.type === condition.type);
  return index < 0 ? [...conditions, condition] : conditions.map((c, i) => (i === index ? condition : c));
}

/** Kubernetes' `metav1.Time` format: RFC 3339 in UTC, whole seconds. */
function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
