/**
 * The bench's kube-apiserver column (bench/results.ts, bench/report.ts): kube-apiserver's
 * figures, measured once, sit beside every backend's row they compare with, the ratio is
 * Cairn's over kube-apiserver's, the watch goal of issue 28 is judged on that ratio, and a
 * figure kube-apiserver did not measure is a failure the report shows, never a blank.
 * The quick bench in bench.test.ts runs it all for real; this checks the arithmetic and
 * the table on figures chosen to tell right from wrong.
 */
import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../../bench/bench-results.js';
import { quickProfile } from '../../bench/profile.js';
import { renderReport } from '../../bench/report.js';
import { Collector } from '../../bench/results.js';
import { rowSpecs } from '../../bench/rows.js';

const meta: BenchResults['meta'] = {
  commit: 'abcdef0',
  dirty: false,
  date: '2026-11-27T13:00:00.000Z',
  profile: 'quick',
  runs: 1,
  durationSeconds: 60,
  node: 'v22.23.3',
  postgres: 'PostgreSQL 15.18',
  cpus: 2,
  cpuModel: 'AMD EPYC',
  memoryGiB: 24,
  loadAverage: { start: 1, end: 1 },
  kube: 'kube-apiserver v1.34.4 + etcd v3.6.4 (fsync on)',
};

/** A collector with a figure for every row of both backends, and kube-apiserver's for every compared row but `missing`. */
function collected(missing?: string): Collector {
  const collector = new Collector();
  for (const spec of rowSpecs) {
    for (const backend of spec.backends) {
      collector.add(backend, spec.id, 'cairn', backend === 'postgres' ? 8 : 12);
      if (spec.limit?.[backend]) collector.add(backend, spec.id, 'limit', 4);
      if (spec.secondary) collector.add(backend, spec.id, 'secondary', 2);
    }
    if (spec.kube && spec.id !== missing) {
      collector.add('kube', spec.id, 'cairn', 20);
      if (spec.secondary) collector.add('kube', spec.id, 'secondary', 5);
    }
  }
  return collector;
}

describe("the bench's kube-apiserver column", () => {
  it('puts kube-apiserver’s figure beside every backend’s compared row, with the ratio Cairn / kube-apiserver', () => {
    const rows = collected().rows(quickProfile, ['postgres', 'pglite'], true);
    const steady = rows.filter((r) => r.id === 'watch-steady');
    expect(steady.map((r) => [r.backend, r.kube?.median, r.kube?.secondary?.median, r.kubeRatio])).toEqual([
      ['postgres', 20, 5, 0.4],
      ['pglite', 20, 5, 0.6],
    ]);
    // Issue 28: p99 ≤ 0.5 × kube-apiserver's, judged on the ratio, beside the goal on the value (≤ 10 ms).
    expect(steady.map((r) => [r.kubeGoal, r.goal?.met])).toEqual([
      [{ text: '≤ 0.5 × kube-apiserver', met: true }, true],
      [{ text: '≤ 0.5 × kube-apiserver', met: false }, false],
    ]);
    for (const row of rows) {
      const compared = rowSpecs.find((s) => s.id === row.id)?.kube !== undefined;
      expect(row.kube !== undefined, row.id).toBe(compared);
      expect(row.kubeError, row.id).toBeUndefined();
    }
  });

  it('leaves the column out when kube-apiserver was not measured (--no-kube)', () => {
    const rows = collected().rows(quickProfile, ['postgres'], false);
    expect(rows.filter((r) => r.kube !== undefined || r.kubeRatio !== undefined || r.kubeError !== undefined)).toEqual([]);
  });

  it('reports a compared row kube-apiserver did not measure as failed, in its table and its notes', () => {
    const rows = collected('list').rows(quickProfile, ['postgres', 'pglite'], true);
    const list = rows.filter((r) => r.id === 'list');
    expect(list.map((r) => [r.kube, r.kubeRatio, r.kubeError])).toEqual([
      [undefined, undefined, 'no figure was measured'],
      [undefined, undefined, 'no figure was measured'],
    ]);
    const report = renderReport({ meta, rows, latencyCurves: [], kubeNotes: [] });
    const kubeTable = report.slice(report.indexOf('## Against kube-apiserver + etcd (CRD)'), report.indexOf('## Notes'));
    const listLines = kubeTable.split('\n').filter((line) => line.includes('| LIST 1,000 Pipelines, one request |'));
    expect(listLines).toHaveLength(2);
    for (const line of listLines) expect(line).toContain('| failed: no figure was measured |');
    expect(report).toContain('- kube-apiserver + etcd (CRD), LIST 1,000 Pipelines, one request: failed: no figure was measured');
  });

  it('renders both tables: every row against the limits, each compared row against kube-apiserver', () => {
    const rows = collected().rows(quickProfile, ['postgres', 'pglite'], true);
    const report = renderReport({ meta, rows, latencyCurves: [] });
    const limits = report.slice(report.indexOf("## Against the machine's limits"), report.indexOf('## Against kube-apiserver + etcd (CRD)'));
    const kube = report.slice(report.indexOf('## Against kube-apiserver + etcd (CRD)'), report.indexOf('## Watch latency'));
    const tableRows = (section: string): string[] => section.split('\n').filter((line) => /^\| (PostgreSQL|PGlite) /.test(line));
    expect(tableRows(limits)).toHaveLength(rows.length);
    expect(tableRows(kube)).toHaveLength(rows.filter((r) => r.kube).length);
    expect(kube).toContain(
      '| PostgreSQL | server CPU per GET, 10 connections (Node; kube-apiserver) | 8.00 ms (min 8.00 ms) | 20.0 ms (min 20.0 ms) | 0.40 | — | — |',
    );
    expect(report).toContain('kube-apiserver v1.34.4 + etcd v3.6.4 (fsync on)');
  });
});
