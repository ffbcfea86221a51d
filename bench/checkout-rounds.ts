/**
 * Two versions of Cairn compared on a shared machine (`bench/cpu-command.ts`,
 * `bench/watch-command.ts`): each round starts every checkout in turn, a fresh server on a
 * fresh database of one PostgreSQL, so the machine's load, which moves a figure far more
 * than any change does, falls on each alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { startPostgresCluster } from './postgres-cluster.js';

/** One server to start per round: a checkout, and how it runs. */
export interface Checkout {
  readonly repo: string;
  readonly compiled?: boolean;
}

/** The 1-, 5- and 15-minute load averages, to print beside a figure. */
export const loadAverages = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Which server a measurement runs on: its round, its `round-index` tag and the run's scratch directory. */
export interface RoundServer {
  readonly round: number;
  readonly tag: string;
  readonly workDir: string;
}

/**
 * Runs `measure` on a fresh server of each checkout, `rounds` times in turn; `serverOptions`
 * adds flags or node options for each server.
 */
export async function inAlternatingRounds<C extends Checkout>(
  name: string,
  rounds: number,
  checkouts: readonly C[],
  measure: (server: CairnProcess, checkout: C, at: RoundServer) => Promise<void>,
  serverOptions: (at: RoundServer) => Partial<CairnOptions> = () => ({}),
): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), `cairn-${name}-`));
  const cluster = await startPostgresCluster();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [index, checkout] of checkouts.entries()) {
        const tag = `${round}-${index}`;
        const at = { round, tag, workDir };
        const server = await CairnProcess.start({
          dataDir: join(workDir, `data-${tag}`),
          databaseUrl: await cluster.createDatabase(`${name}_${round}_${index}`),
          logFile: join(workDir, `cairn-${tag}.log`),
          repo: checkout.repo,
          ...(checkout.compiled !== undefined && { compiled: checkout.compiled }),
          extraArgs: ['--garbage-collector', 'off'],
          ...serverOptions(at),
        });
        try {
          await measure(server, checkout, at);
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await cluster.destroy();
    await rm(workDir, { recursive: true, force: true });
  }
}
