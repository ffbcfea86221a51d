/**
 * Waiting for a condition a server reaches on its own time (a watch ended, a metric
 * moved, readiness back): polls, so the test waits as long as needed and no longer.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` until it returns true, for at most `timeoutMs`; throws naming `what` otherwise. */
export async function eventually(what: string, timeoutMs: number, probe: () => Promise<boolean>, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
