/**
 * The faults section of `report.md` (issue 27): what each fault of a Patroni cluster cost
 * Cairn's writers beside the failover time Patroni itself took.
 */
import type { FaultsResults } from './faults-bench.js';

const n = (v: number): string => Math.round(v).toLocaleString('en-US');

/** The section, or nothing before the first `npm run bench -- --faults`. */
export function renderFaults(faults: FaultsResults | undefined): string[] {
  if (!faults) return [];
  const { meta, timing } = faults;
  return [
    '## Patroni faults',
    '',
    `Commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, measured ${meta.date} by \`npm run bench -- --faults\` ` +
      `on ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node.js ${meta.node}${meta.postgres ? `, ${meta.postgres}` : ''}, ${Math.round(meta.durationSeconds)} s in all; ` +
      `1-minute load average ${meta.loadAverage.start} at the start, ${meta.loadAverage.end} at the end.`,
    '',
    `Three Patroni members in strict synchronous mode (ttl ${timing.ttl} s, loop_wait ${timing.loop_wait} s, retry_timeout ${timing.retry_timeout} s) behind HAProxy's \`OPTIONS /primary\` check, ` +
      'two Cairn replicas under continuous creates (two writers each) with watchers on both, the faults one after another. ' +
      "The write gap is the longest pause between two acknowledged creates from the last one before the fault to the first after the primary was back; Patroni's failover time runs from the fault until a member Patroni names primary is out of recovery; in strict synchronous mode it acknowledges commits only once a synchronous standby streams from it, the next column. " +
      'The run passed: no acknowledged write lost, every watcher saw every create exactly once (or was answered 410 and would relist), no request outlived the request timeout.',
    '',
    "| fault | write gap | Patroni's failover | acknowledging again | gap beyond acknowledging | creates refused (503) | leader |",
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...faults.measurements.map(
      (m) =>
        `| ${m.fault} | ${n(m.writeGapMs)} ms | ${n(m.patroniFailoverMs)} ms | ${m.acknowledgingMs === undefined ? '—' : `${n(m.acknowledgingMs)} ms`} | ${m.acknowledgingMs === undefined ? '—' : `${n(m.writeGapMs - m.acknowledgingMs)} ms`} | ${m.refused} | ${m.leaderBefore} → ${m.leaderAfter} |`,
    ),
    '',
  ];
}
