/**
 * `npm run bench -- --faults`: what each fault of a Patroni cluster costs Cairn's writers
 * (issue 27). The scenario is the failover test's own (test/storage/patroni-failover.test.ts:
 * three Patroni members behind HAProxy, two Cairn replicas under continuous creates),
 * run through vitest so the figures come from the run that also proves nothing was lost;
 * the test writes each fault's measurement to the file this names.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchMeta } from './bench-results.js';
import { repoRoot } from './repo-root.js';
import { runMeta, runStart } from './run-meta.js';

/**
 * Patroni's timing in the scenario: the leader key lives `ttl` seconds unless renewed each
 * `loop_wait` (Patroni requires loop_wait + 2 × retry_timeout ≤ ttl). Production's defaults
 * are 30/10/10; these are shorter so a dead agent's key expires in seconds, not half a minute.
 */
export const patroniTiming = { ttl: 10, loop_wait: 1, retry_timeout: 4 } as const;

/** What one fault cost. */
export interface FaultMeasurement {
  readonly fault: string;
  /** From the fault until a member Patroni names primary (`OPTIONS /primary` 200) takes writes again (polled each 100 ms). */
  readonly patroniFailoverMs: number;
  /** From the fault until that primary has a synchronous standby streaming, so it acknowledges commits again (strict synchronous mode). */
  readonly acknowledgingMs?: number;
  /** The longest pause between two acknowledged creates, from the last one before the fault to the first after the primary was back. */
  readonly writeGapMs: number;
  /** Creates refused (503) during the fault. */
  readonly refused: number;
  readonly leaderBefore: string;
  readonly leaderAfter: string;
}

/** The `faults` part of `results.json`. */
export interface FaultsResults {
  readonly meta: BenchMeta;
  /** Patroni's ttl, loop_wait and retry_timeout in the run, in seconds. */
  readonly timing: typeof patroniTiming;
  readonly measurements: readonly FaultMeasurement[];
}

/** The environment variable through which the test hands its measurements over. */
export const faultsReportVariable = 'CAIRN_FAULTS_REPORT';
const testFile = 'test/storage/patroni-failover.test.ts';

/** Runs the failover test once and returns its measurements; throws with vitest's output when it fails. */
export async function runFaultsBench(): Promise<FaultsResults> {
  const start = runStart();
  const directory = await mkdtemp(join(tmpdir(), 'cairn-bench-faults-'));
  const report = join(directory, 'faults.json');
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('npx', ['vitest', 'run', testFile], {
        cwd: repoRoot,
        env: { ...process.env, [faultsReportVariable]: report },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`${testFile} failed (exit ${code}):\n${text.slice(-4000)}`))));
    });
    const measurements = JSON.parse(await readFile(report, 'utf8').catch(() => 'null')) as FaultMeasurement[] | null;
    if (!measurements) throw new Error(`${testFile} passed but wrote no measurements:\n${output.slice(-2000)}`);
    const postgres = execFileSync('/usr/lib/postgresql/15/bin/postgres', ['--version'], { encoding: 'utf8' })
      .replace(/^postgres \(PostgreSQL\)/, 'PostgreSQL')
      .trim();
    return { meta: runMeta(start, 'full', 1, postgres), timing: patroniTiming, measurements };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
