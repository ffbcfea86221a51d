/**
 * Who owns what a mutating admission webhook adds, verb by verb, with kube-apiserver's
 * answer as the reference: the same writes to Cairn's Pipelines and to kube-apiserver's
 * custom resource of the same Pipelines (environment.ts), both of which call the one
 * webhook that labels every Pipeline `mutated-by: webhook`. kube's handlers record
 * managedFields before mutating admission on every verb (patch, then the field manager,
 * then admission), so the label is no manager's, while the field the client changed is
 * its manager's. Cairn must answer as kube does, and kube's answer is written down too,
 * so the test also fails if both moved.
 *
 * Each verb writes a Pipeline of its own. Those a verb changes exist before the namespace
 * turns the webhook on, without the label: the label is then new on every verb, so a field
 * manager recording after admission would give it to the request's manager.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipelines } from '../../src/apis/cairn/pipelines.js';
import { kubectlAvailable } from '../support/kubectl.js';
import type { Answer } from './client.js';
import { crdGroup, startDifferentialEnvironment, webhookLabel, type DifferentialEnvironment } from './environment.js';
import { create, get, patch, pipeline, put, toSent, type Earlier, type Step } from './steps.js';

const namespace = 'ownership';
/** The manager of the Pipelines the verbs then change. */
const creator = 'creator';
/** The field every verb's client sets, and the one the webhook sets. */
const clientFieldPath = ['spec', 'paused'];
const webhookFieldPath = ['metadata', 'labels', webhookLabel.key];

/** One verb's write to a Pipeline of its own, as a manager of its own. */
interface Write {
  readonly verb: string;
  /** The Pipeline it writes, made by {@link creator} beforehand unless the verb creates it. */
  readonly name: string;
  readonly existing: boolean;
  /** The requests: the last one writes; a request before it may read what the write changes. */
  readonly steps: readonly Step[];
}

const byManager = (manager: string): string => `fieldManager=${manager}`;

/** The Pipeline read by the step before, with `spec.paused` set. */
const paused = (earlier: Earlier): unknown => {
  const object = structuredClone(earlier.at(-1)!.json);
  object.spec.paused = true;
  return object;
};

const writes: readonly Write[] = [
  {
    verb: 'create (POST)',
    name: 'posted',
    existing: false,
    steps: [create(pipeline('posted', { spec: { paused: true } }), byManager('poster'))],
  },
  { verb: 'update (PUT)', name: 'put', existing: true, steps: [get('put'), put('put', paused, byManager('putter'))] },
  {
    verb: 'merge patch (PATCH)',
    name: 'merge-patched',
    existing: true,
    steps: [patch('merge-patched', 'merge', { spec: { paused: true } }, byManager('merge-patcher'))],
  },
  {
    verb: 'JSON patch (PATCH)',
    name: 'json-patched',
    existing: true,
    steps: [patch('json-patched', 'json', [{ op: 'add', path: '/spec/paused', value: true }], byManager('json-patcher'))],
  },
  {
    verb: 'server-side apply, updating (PATCH)',
    name: 'applied',
    existing: true,
    steps: [
      patch('applied', 'apply', { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'applied' }, spec: { paused: true } }, byManager('applier')),
    ],
  },
  {
    verb: 'server-side apply, creating (PATCH)',
    name: 'apply-created',
    existing: false,
    steps: [patch('apply-created', 'apply', pipeline('apply-created', { spec: { paused: true } }), byManager('creating-applier'))],
  },
];

/** Which managers own the webhook's field and the client's, `manager (operation)`, in name order. */
interface Owners {
  readonly webhookField: readonly string[];
  readonly clientField: readonly string[];
}

/**
 * kube-apiserver 1.34's answer, found by running this test: the webhook's label is no
 * manager's on every verb, and the client's field is the request's manager's alone.
 */
const kubesAnswer: Readonly<Record<string, Owners>> = {
  'create (POST)': { webhookField: [], clientField: ['poster (Update)'] },
  'update (PUT)': { webhookField: [], clientField: ['putter (Update)'] },
  'merge patch (PATCH)': { webhookField: [], clientField: ['merge-patcher (Update)'] },
  'JSON patch (PATCH)': { webhookField: [], clientField: ['json-patcher (Update)'] },
  'server-side apply, updating (PATCH)': { webhookField: [], clientField: ['applier (Apply)'] },
  'server-side apply, creating (PATCH)': { webhookField: [], clientField: ['creating-applier (Apply)'] },
};

interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: string;
  readonly fieldsV1?: Record<string, unknown>;
}

/** The managers whose fieldsV1 hold `path`, as `manager (operation)`. */
function ownersOf(entries: readonly ManagedFieldsEntry[], path: readonly string[]): string[] {
  const owns = (entry: ManagedFieldsEntry): boolean =>
    path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[`f:${key}`], entry.fieldsV1) !== undefined;
  return entries
    .filter(owns)
    .map((entry) => `${entry.manager} (${entry.operation})`)
    .sort();
}

// startAggregatedCairn registers Cairn with kubectl.
describe.runIf(kubectlAvailable)('who owns a mutating webhook’s change, on Cairn and on kube-apiserver’s custom resource (needs kubectl on PATH)', () => {
  let env: DifferentialEnvironment;

  /** Sends `step` for the Pipelines of `group`, and throws with both servers' logs unless it succeeded. */
  const sent = async (step: Step, group: string, earlier: Earlier): Promise<Answer> => {
    const request = toSent(step, group, namespace, earlier);
    const answer = await env.send(request);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.body.toString('utf8')}\n${await env.logTail()}`);
    }
    return answer;
  };

  beforeAll(async () => {
    env = await startDifferentialEnvironment(inject('goPrograms'));
    await env.createNamespace(namespace, false);
    for (const group of [pipelines.group, crdGroup]) {
      for (const { name } of writes.filter((write) => write.existing)) await sent(create(name, byManager(creator)), group, []);
    }
    await env.turnWebhookOn(namespace);
  }, 240_000);

  afterAll(async () => {
    await env?.stop();
  }, 60_000);

  /** Runs `write` on the Pipelines of `group` and answers who owns what in the Pipeline read back afterwards. */
  const ownersAfter = async (write: Write, group: string): Promise<Owners> => {
    const earlier: Answer[] = [];
    for (const step of write.steps) earlier.push(await sent(step, group, earlier));
    const object = (await sent(get(write.name), group, earlier)).json;
    // Without the label the webhook was not called, and nobody owning it would prove nothing.
    expect(object.metadata.labels?.[webhookLabel.key], `${group}: the webhook’s label`).toBe(webhookLabel.value);
    expect(object.spec.paused, `${group}: the client’s field`).toBe(true);
    const entries = (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
    return { webhookField: ownersOf(entries, webhookFieldPath), clientField: ownersOf(entries, clientFieldPath) };
  };

  for (const write of writes) {
    it(`${write.verb}: the webhook’s label is owned as kube-apiserver owns it`, async () => {
      const [cairn, kube] = await Promise.all([ownersAfter(write, pipelines.group), ownersAfter(write, crdGroup)]);
      expect(kube, 'kube-apiserver’s answer').toEqual(kubesAnswer[write.verb]);
      expect(cairn, 'Cairn’s answer (expected: kube-apiserver’s)').toEqual(kube);
    });
  }
});
