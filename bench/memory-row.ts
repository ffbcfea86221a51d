/** The memory row: what a server and its database hold after the load and watch rows, Cairn's and kube-apiserver's alike. */
import type { BenchContext } from './bench-context.js';
import { mib } from './process-memory.js';
import type { Subject } from './results.js';
import type { ServerUsage } from './server-usage.js';

/** Records the memory of the server `usage` reads as the `memory` row of `subject`. */
export function memoryRow(ctx: BenchContext, subject: Subject, usage: ServerUsage): void {
  try {
    const { server, serverAndStore } = usage.memoryBytes();
    ctx.collector.add(subject, 'memory', 'cairn', mib(serverAndStore));
    ctx.collector.add(subject, 'memory', 'secondary', mib(server));
  } catch (error) {
    ctx.collector.fail(subject, 'memory', error);
  }
}
