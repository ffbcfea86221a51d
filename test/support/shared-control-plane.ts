/**
 * What the tests that drive the test control plane share: one control plane for a describe
 * block, started before its tests and stopped after them, and kubectl as its admin, failing
 * the test with the servers' logs when it does not succeed.
 */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startKubeControlPlane, type KubeControlPlane, type KubeControlPlaneOptions } from './kube-control-plane.js';
import type { RunResult } from './kubectl.js';

/** Starts a control plane for the enclosing `describe` block; the accessor fails the calling test when it could not start. */
export function sharedKubeControlPlane(options: KubeControlPlaneOptions = {}): () => KubeControlPlane {
  let plane: KubeControlPlane | undefined;
  beforeAll(async () => {
    plane = await startKubeControlPlane(inject('goPrograms'), options);
  }, 180_000);
  afterAll(async () => {
    await plane?.stop();
  }, 60_000);
  return () => {
    if (plane === undefined) throw new Error('the test control plane did not start');
    return plane;
  };
}

/** Runs kubectl as the cluster admin and fails the test, with its output and the servers' logs, unless it exits 0. */
export async function kubectlOk(plane: KubeControlPlane, ...args: string[]): Promise<RunResult> {
  const result = await plane.kubectl(args);
  if (result.code !== 0)
    expect.fail(`kubectl ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}\n${await plane.logTail()}`);
  return result;
}
