/**
 * Runs one case against both servers, each in the same fresh namespace, and returns
 * what each answered to the compared requests, normalized.
 */
import { pipelines } from '../../src/apis/cairn/pipelines.js';
import type { Answer, Sent } from './client.js';
import { normalize, type Normalized } from './normalize.js';
import { isWatch, toSent, type DiffCase } from './steps.js';

/** Where a case runs. */
export interface CaseServers {
  send(request: Sent): Promise<Answer>;
  createNamespace(name: string, webhook: boolean): Promise<void>;
}

/** The normalized answers of a case's compared requests (the request, then its `then`), per server. */
export interface CaseAnswers {
  readonly cairn: readonly Normalized[];
  readonly kube: readonly Normalized[];
}

/** Runs `c`'s steps on the server of `group`, in order; throws when a setup step fails. */
async function runOn(servers: CaseServers, c: DiffCase, group: string, namespace: string): Promise<Normalized[]> {
  const earlier: Answer[] = [];
  for (const [i, step] of (c.setup ?? []).entries()) {
    const sent = toSent(step, group, namespace, earlier);
    const answer = await servers.send(sent);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${c.name}: setup step ${i} (${sent.method} ${sent.path}) on ${group}: ${answer.status} ${answer.body.toString('utf8').slice(0, 2000)}`);
    }
    earlier.push(answer);
  }
  const compared: Normalized[] = [];
  for (const step of c.then === undefined ? [c.request] : [c.request, c.then]) {
    const answer = await servers.send(toSent(step, group, namespace, earlier));
    const normalized = normalize(answer, group, isWatch(step, earlier));
    compared.push(c.statusOnly && step === c.request ? { ...normalized, body: '<not compared>' } : normalized);
    earlier.push(answer);
  }
  return compared;
}

/** Creates `namespace` and runs `c` there against Cairn and against the custom resource of `crdGroup`, at the same time. */
export async function runCase(servers: CaseServers, c: DiffCase, namespace: string, crdGroup: string): Promise<CaseAnswers> {
  await servers.createNamespace(namespace, c.webhook ?? false);
  const [cairn, kube] = await Promise.all([runOn(servers, c, pipelines.group, namespace), runOn(servers, c, crdGroup, namespace)]);
  return { cairn, kube };
}
