/**
 * cairn.dev/v1alpha1 Pipelines to and from the v1 hub (the field mapping docs/api-reference.md shows per version).
 *
 * What v1alpha1 cannot express — `spec.paused`, a step's `env` and a command that is
 * not `sh -c <string>`, conditions beyond what `status.ready` says — travels in two
 * annotations, one for the spec and one for the status (so a status writer and a spec
 * writer own different ones), which the conversion back to v1 consumes and strips.
 * Keys keep their positions, so converting there and back gives the same bytes.
 */
import { isPlainObject, jsonEqual, type KubeObject } from '../../../machinery/meta/object.js';
import { groupName, storageVersion } from '../group-name.js';
import { inserted, objectMetaOrder, renamed, retagged, without } from '../object-fields.js';

const version = `${groupName}/v1alpha1`;
const hub = `${groupName}/${storageVersion}`;

/** Carries v1's `spec.paused` and each step's `command` (when not a shell string) and `env`, as JSON. */
export const specAnnotation = 'pipelines.cairn.dev/v1-spec';
/** Carries v1's `status.conditions` when `status.ready` does not say all of them, as JSON. */
export const statusAnnotation = 'pipelines.cairn.dev/v1-status';

/** The order of v1's fields, where a restored field goes back. */
const specOrder = ['runnerClassName', 'replicas', 'paused', 'steps'];
const stepOrder = ['name', 'image', 'command', 'env'];
const statusOrder = ['phase', 'replicas', 'readyReplicas', 'selector', 'observedGeneration', 'conditions'];

/** What a step holds in v1 only. */
interface StepFields {
  name: unknown;
  command?: unknown;
  env?: unknown;
}

/** What a spec holds in v1 only. */
interface SpecFields {
  paused?: unknown;
  steps?: StepFields[];
}

type Json = Record<string, unknown>;

/** `["sh", "-c", X]`: a command v1alpha1's `run` says. */
function isShellCommand(command: unknown): command is [string, string, string] {
  return Array.isArray(command) && command.length === 3 && command[0] === 'sh' && command[1] === '-c' && typeof command[2] === 'string';
}

/** `status.ready` of v1 conditions: the Ready condition's status is True; undefined without one. */
function readyOf(conditions: unknown): boolean | undefined {
  if (!Array.isArray(conditions)) return undefined;
  const ready: unknown = conditions.find((c) => isPlainObject(c) && c.type === 'Ready');
  return isPlainObject(ready) ? ready.status === 'True' : undefined;
}

/** The conditions `ready` alone stands for. */
function conditionsOf(ready: boolean): Json[] {
  return [{ type: 'Ready', status: ready ? 'True' : 'False' }];
}

function stepToVersion(step: unknown, extras: StepFields[]): unknown {
  if (!isPlainObject(step)) return step;
  const converted: Json = {};
  const own: StepFields = { name: step.name };
  for (const [key, value] of Object.entries(step)) {
    if (key === 'command' && isShellCommand(value)) converted.run = value[2];
    else if (key === 'command' || key === 'env') own[key] = value;
    else converted[key] = value;
  }
  if (Object.keys(own).length > 1) extras.push(own);
  return converted;
}

function specToVersion(spec: Json, annotations: Json): Json {
  const extras: SpecFields = {};
  const steps: StepFields[] = [];
  let converted = renamed(without(spec, 'paused'), { runnerClassName: 'runnerClass', replicas: 'parallelism' });
  if ('paused' in spec) extras.paused = spec.paused;
  if (Array.isArray(spec.steps)) converted = { ...converted, steps: spec.steps.map((step) => stepToVersion(step, steps)) };
  if (steps.length) extras.steps = steps;
  if (Object.keys(extras).length) annotations[specAnnotation] = JSON.stringify(extras);
  return converted;
}

function statusToVersion(status: Json, annotations: Json): Json {
  if (!('conditions' in status)) return status;
  const { conditions } = status;
  const ready = readyOf(conditions);
  const converted: Json = {};
  for (const [key, value] of Object.entries(status)) {
    if (key !== 'conditions') converted[key] = value;
    else if (ready !== undefined) converted.ready = ready;
  }
  if (ready === undefined || !jsonEqual(conditions, conditionsOf(ready)) || Object.keys((conditions as Json[])[0]).join() !== 'type,status') {
    annotations[statusAnnotation] = JSON.stringify({ conditions });
  }
  return converted;
}

/** A v1 Pipeline in v1alpha1. */
export function pipelineFromStorage(object: KubeObject): KubeObject {
  const converted: KubeObject = retagged(object, version);
  const annotations: Json = {};
  if (isPlainObject(converted.spec)) converted.spec = specToVersion(converted.spec, annotations);
  if (isPlainObject(converted.status)) converted.status = statusToVersion(converted.status, annotations);
  if (Object.keys(annotations).length) {
    const metadata: Json = { ...converted.metadata };
    converted.metadata = inserted(metadata, 'annotations', { ...converted.metadata?.annotations, ...annotations }, objectMetaOrder);
  }
  return converted;
}

/** The annotation's JSON object; undefined when absent or not one (then it stays, for validation to refuse). */
function parsedAnnotation(annotations: Readonly<Record<string, string>> | undefined, key: string): Json | undefined {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function stepToHub(step: unknown, extras: readonly unknown[]): unknown {
  if (!isPlainObject(step)) return step;
  let converted: Json = {};
  for (const [key, value] of Object.entries(step)) {
    if (key === 'run') converted.command = ['sh', '-c', value];
    else converted[key] = value;
  }
  const own = extras.find((e): e is Json => isPlainObject(e) && jsonEqual(e.name, step.name));
  if (own && own.command !== undefined && !('run' in step)) converted = inserted(converted, 'command', own.command, stepOrder);
  if (own && own.env !== undefined) converted = inserted(converted, 'env', own.env, stepOrder);
  return converted;
}

function specToHub(spec: Json, extras: Json | undefined): Json {
  let converted = renamed(spec, { runnerClass: 'runnerClassName', parallelism: 'replicas' });
  if (extras && 'paused' in extras) converted = inserted(converted, 'paused', extras.paused, specOrder);
  const stepExtras = Array.isArray(extras?.steps) ? extras.steps : [];
  if (Array.isArray(converted.steps)) converted.steps = converted.steps.map((step) => stepToHub(step, stepExtras));
  return converted;
}

/**
 * The conditions of a v1alpha1 status: those the annotation kept, with the Ready
 * condition following `ready` when a v1alpha1 writer changed it; without the
 * annotation, what `ready` alone says.
 */
function conditionsToHub(ready: unknown, kept: unknown): unknown {
  if (kept === undefined) return typeof ready === 'boolean' ? conditionsOf(ready) : undefined;
  if (!Array.isArray(kept) || readyOf(kept) === ready) return kept;
  const conditions: unknown[] = kept;
  const others = conditions.filter((c) => !(isPlainObject(c) && c.type === 'Ready'));
  if (typeof ready !== 'boolean') return others;
  const previous = conditions.find((c) => isPlainObject(c) && c.type === 'Ready');
  const status = ready ? 'True' : 'False';
  return isPlainObject(previous) ? conditions.map((c) => (c === previous ? { ...previous, status } : c)) : [...others, ...conditionsOf(ready)];
}

function statusToHub(status: Json, extras: Json | undefined): Json {
  const conditions = conditionsToHub(status.ready, extras?.conditions);
  if ('ready' in status) {
    const converted: Json = {};
    for (const [key, value] of Object.entries(status)) {
      if (key !== 'ready') converted[key] = value;
      else if (conditions !== undefined) converted.conditions = conditions;
    }
    return converted;
  }
  return conditions === undefined ? status : inserted(status, 'conditions', conditions, statusOrder);
}

/** A v1alpha1 Pipeline in v1. */
export function pipelineToStorage(object: KubeObject): KubeObject {
  const converted: KubeObject = retagged(object, hub);
  const annotations = converted.metadata?.annotations;
  const specExtras = parsedAnnotation(annotations, specAnnotation);
  const statusExtras = parsedAnnotation(annotations, statusAnnotation);
  if (specExtras || statusExtras) {
    const kept = without(annotations!, ...(specExtras ? [specAnnotation] : []), ...(statusExtras ? [statusAnnotation] : []));
    const metadata: Json = { ...converted.metadata, annotations: kept };
    if (Object.keys(kept).length === 0) delete metadata.annotations;
    converted.metadata = metadata;
  }
  if (isPlainObject(converted.spec)) converted.spec = specToHub(converted.spec, specExtras);
  else if (converted.spec === undefined && specExtras) converted.spec = specToHub({}, specExtras);
  if (isPlainObject(converted.status)) converted.status = statusToHub(converted.status, statusExtras);
  else if (converted.status === undefined && statusExtras) converted.status = statusToHub({}, statusExtras);
  return converted;
}

/** v1alpha1's field selector labels in v1: `spec.runnerClass` is `spec.runnerClassName`, which is no label of v1alpha1. */
export function pipelineFieldLabel(label: string): string | undefined {
  if (label === 'spec.runnerClass') return 'spec.runnerClassName';
  return label === 'spec.runnerClassName' ? undefined : label;
}

/** Where a field the v1 validation names is in v1alpha1: renamed, or in the annotation that carries it. */
export function pipelineFieldPath(path: string): string {
  const [head = '', rest = ''] = /^([a-zA-Z.]+)(.*)$/.exec(path)?.slice(1) ?? [];
  if (head === 'spec.replicas') return `spec.parallelism${rest}`;
  if (head === 'spec.runnerClassName') return `spec.runnerClass${rest}`;
  if (head === 'spec.paused' || /^spec\.steps\[\d+\]\.(command|env)\b/.test(path)) return `metadata.annotations[${specAnnotation}]`;
  if (head === 'status.conditions') return `metadata.annotations[${statusAnnotation}]`;
  return path;
}
