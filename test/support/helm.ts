/**
 * helm (built by the global setup from tools/helm/) for the chart's tests: runs it, and
 * renders charts/cairn into objects, so a test reads what `helm template` or `helm install`
 * would hand kube-apiserver.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { RunResult } from './kubectl.js';

const execFileAsync = promisify(execFile);

/** The repository's chart. */
export const cairnChart = join(import.meta.dirname, '..', '..', 'charts', 'cairn');

/** Runs helm; a non-zero exit is a result, not a rejection. `env` gives it a kubeconfig and a private HOME. */
export async function runHelm(helm: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(helm, [...args], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw error;
    return { code: failure.code, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** `helm template RELEASE charts/cairn --namespace NS ARGS` as objects; throws with helm's message when it refuses. */
export async function renderChart(helm: string, args: readonly string[] = [], release = 'cairn', namespace = 'cairn-system'): Promise<any[]> {
  const result = await runHelm(helm, ['template', release, cairnChart, '--namespace', namespace, ...args]);
  if (result.code !== 0) throw new Error(`helm template exited ${result.code}: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS())
    .filter((object) => object !== null);
}
