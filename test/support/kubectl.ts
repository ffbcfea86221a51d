/**
 * The machine's real kubectl binaries, and running them against a test server.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Where `command` is on PATH, if it is. */
function findOnPath(command: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The `kubectl` on PATH (the version dispatcher), if any: decides whether kubectl suites run at all. */
export const kubectlOnPath = findOnPath('kubectl');
export const kubectlAvailable = kubectlOnPath !== undefined;
// The project's machines have kubectl: under CI a missing one is a broken machine, not a reason to skip a fifth of the suite.
if (!kubectlAvailable && process.env.CI) throw new Error('kubectl is not on PATH while CI is set: the kubectl suites would be skipped');
// The versioned binaries sit beside the dispatcher's real location.
const versionedDir = kubectlOnPath === undefined ? '' : dirname(realpathSync(kubectlOnPath));

/** The versioned kubectl binary `kubectl.1.<minor>`. */
export function versionedKubectl(minor: number): string {
  return join(versionedDir, `kubectl.1.${minor}`);
}

/** One kubectl to drive; `slug` keeps its objects apart from the other clients'. */
export interface KubectlClient {
  readonly label: string;
  readonly binary: string;
  readonly slug: string;
}

/**
 * The dispatcher on PATH and the versioned binaries of `minors`. Listed even
 * without kubectl, so skipped tests show up under their reason.
 */
export function kubectlClients(minors: readonly number[]): KubectlClient[] {
  return [
    { label: 'kubectl on PATH (dispatcher)', binary: kubectlOnPath ?? 'kubectl', slug: 'path' },
    ...minors.map((minor) => ({ label: `kubectl.1.${minor}`, binary: versionedKubectl(minor), slug: `v1${minor}` })),
  ];
}

/** Every kubectl minor version the machine carries and Cairn is tested with. */
export const kubectlMinors = [27, 28, 29, 30, 31, 32, 33] as const;

/** What one kubectl invocation did. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl to completion; a non-zero exit is returned, not thrown. */
export async function runKubectl(binary: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  try {
    const { stdout, stderr } = await execFileAsync(binary, [...args, '--request-timeout=20s'], {
      env,
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw error; // ENOENT, killed by the timeout, …
    return { code: failure.code, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** Splits kubectl's column output into rows of whitespace-separated cells. */
export function rows(output: string): string[][] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/));
}

/** Resolves once `predicate` holds, or rejects after `timeoutMs` with `explain()`. */
export async function waitFor(predicate: () => boolean, timeoutMs: number, explain: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
