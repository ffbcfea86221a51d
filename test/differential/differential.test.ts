/**
 * Cairn against kube-apiserver: every case of the table (cases.ts) is sent to Cairn's
 * Pipelines, registered behind a real kube-apiserver 1.34, and to the same Pipelines served
 * by that kube-apiserver as a custom resource (environment.ts); the normalized answers
 * (normalize.ts) must be equal, unless divergences.ts lists the case,
 * which must then differ. Each case runs in a namespace of its own, both servers at once;
 * a few cases at a time.
 */
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { kubectlAvailable } from '../support/kubectl.js';
import { cases } from './cases.js';
import { divergences } from './divergences.js';
import { crdGroup, startDifferentialEnvironment, type DifferentialEnvironment } from './environment.js';
import { runCase } from './run-case.js';

// startAggregatedCairn registers Cairn with kubectl.
describe.runIf(kubectlAvailable)('the same requests to Cairn and to kube-apiserver’s custom resource (needs kubectl on PATH)', () => {
  let env: DifferentialEnvironment;

  beforeAll(async () => {
    env = await startDifferentialEnvironment(inject('goPrograms'));
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
  }, 60_000);

  describe.concurrent('cases', () => {
    for (const [index, c] of cases.entries()) {
      it(c.name, async ({ expect }) => {
        const { cairn, kube } = await runCase(env, c, `case-${index}`, crdGroup);
        const listed = divergences[c.name];
        if (listed === undefined) {
          expect(cairn, 'Cairn’s answers (expected: kube’s)').toEqual(kube);
        } else {
          expect(cairn, `listed as differing (${listed}), but Cairn answers as kube does: take the case off its list`).not.toEqual(kube);
        }
      });
    }
  });
});
