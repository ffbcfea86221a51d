/**
 * `npm run bench -- --quick` measures every row end to end, on PostgreSQL and PGlite,
 * and the kube-apiserver + etcd column beside them (a real control plane serving the
 * Pipelines CRD, from the binaries the global setup built), and writes well-formed outputs; `npm run bench -- --scale --quick` then measures every
 * scale figure on 20,000 seeded Pipelines into the same outputs, keeping the rest, and
 * `npm run bench -- --history --quick` every history figure on 2,000 Pipelines of 10
 * revisions each.
 * Benchmarks are not tests: no figure is judged here, only that each was measured and
 * reported.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import * as prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchResults, ResultsDocument } from '../../bench/bench-results.js';
import { rowSpecs, rowsFor, type Backend } from '../../bench/rows.js';

const root = join(import.meta.dirname, '..', '..');
const backends: readonly Backend[] = ['postgres', 'pglite'];

/** Runs `npm run bench -- --quick --out DIR [...more]` and resolves with its exit code and stderr (the progress). */
function runQuickBench(outDir: string, ...more: string[]): Promise<{ code: number | null; stderr: string }> {
  // The node running the tests (the project's own) runs tsx, whatever `node` is first on PATH.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'bench', '--', '--quick', '--out', outDir, ...more], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('npm run bench -- --quick', () => {
  let outDir: string;
  let run: { code: number | null; stderr: string };
  let scaleRun: { code: number | null; stderr: string };
  let results: BenchResults;
  let scale: ResultsDocument['scale'];
  let report: string;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'cairn-bench-test-'));
    run = await runQuickBench(outDir);
    scaleRun = await runQuickBench(outDir, '--scale');
    const document = JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')) as ResultsDocument;
    results = document as BenchResults;
    scale = document.scale;
    report = await readFile(join(outDir, 'report.md'), 'utf8');
  }, 460_000);
  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it('exits 0 with the progress of every step on stderr', () => {
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    expect(run.stderr).toMatch(/^\[1\/\d+ /m);
    expect(run.stderr).toContain('bench finished in');
  });

  it('measures every row of both backends with its limit, ratio and goal', () => {
    expect(results.meta).toMatchObject({ profile: 'quick', runs: 1, cpus: expect.any(Number), commit: expect.stringMatching(/^[0-9a-f]{7,}$/) });
    expect(results.meta.postgres).toMatch(/^PostgreSQL 15\./);
    const expected = rowsFor(backends);
    expect(results.rows.map((r) => `${r.backend}/${r.id}`)).toEqual(expected.map(({ spec, backend }) => `${backend}/${spec.id}`));
    for (const { spec, backend } of expected) {
      const row = results.rows.find((r) => r.backend === backend && r.id === spec.id)!;
      const where = `${backend}/${spec.id}: ${row.error ?? ''}`;
      expect(row.error, where).toBeUndefined();
      expect(row.cairn?.runs, where).toHaveLength(1);
      expect(Number.isFinite(row.cairn?.median), where).toBe(true);
      expect(row.cairn?.unit, where).toBe(spec.unit);
      // A limit may be measured on one backend only (the bare server's write path stores in PostgreSQL).
      if (spec.limit?.[backend]) {
        expect(Number.isFinite(row.limit?.median), where).toBe(true);
        expect(Number.isFinite(row.ratio), where).toBe(true);
      } else {
        expect(row.limit, where).toBeUndefined();
      }
      if (spec.secondary) expect(Number.isFinite(row.secondary?.median), where).toBe(true);
      if (spec.goal) expect(typeof row.goal?.met, where).toBe('boolean');
    }
  });

  it('measures every compared row on kube-apiserver + etcd with fsync on, with its ratio and goal', () => {
    expect(results.meta.kube).toMatch(/^kube-apiserver v1\.\d+\.\d+ \+ etcd v3\.\d+\.\d+ \(fsync on\)$/);
    const compared = rowsFor(backends).filter(({ spec }) => spec.kube);
    expect(compared.map(({ spec }) => spec.id)).toEqual(
      expect.arrayContaining(['creates', 'get', 'list', 'watch-steady', 'watch-many', 'cpu-create', 'cpu-get', 'memory']),
    );
    for (const { spec, backend } of compared) {
      const row = results.rows.find((r) => r.backend === backend && r.id === spec.id)!;
      const where = `${backend}/${spec.id}: ${row.kubeError ?? ''}`;
      expect(row.kubeError, where).toBeUndefined();
      expect(row.kube?.runs, where).toHaveLength(1);
      expect(row.kube!.median, where).toBeGreaterThan(0);
      expect(Number.isFinite(row.kubeRatio), where).toBe(true);
      if (spec.secondary) expect(Number.isFinite(row.kube?.secondary?.median), where).toBe(true);
      if (spec.kube?.goal) expect(typeof row.kubeGoal?.met, where).toBe('boolean');
    }
    for (const row of results.rows.filter((r) => !rowSpecs.find((s) => s.id === r.id)?.kube)) expect(row.kube, row.id).toBeUndefined();
  });

  it('keeps a latency curve of every watch row, kube-apiserver’s too', () => {
    const watchRows = rowsFor(backends).filter(({ spec }) => spec.id.startsWith('watch-') || spec.id === 'cross-replica');
    const kubeWatchRows = rowSpecs.filter((spec) => spec.kube && spec.id.startsWith('watch-')).map((spec) => `kube/${spec.id}`);
    expect(results.latencyCurves.map((c) => `${c.backend}/${c.id}`).sort()).toEqual(
      [...watchRows.map(({ spec, backend }) => `${backend}/${spec.id}`), ...kubeWatchRows].sort(),
    );
    for (const curve of results.latencyCurves) {
      expect(curve.samples).toBeGreaterThan(0);
      expect(curve.points.every((p) => Number.isFinite(p.ms) && p.ms >= 0)).toBe(true);
      expect(curve.points.map((p) => p.ms)).toEqual([...curve.points.map((p) => p.ms)].sort((a, b) => a - b));
    }
  });

  it('writes a Markdown report with a row per result against the limits, a row per compared result against kube-apiserver, and a latency chart per server', async () => {
    const limits = report.slice(report.indexOf("## Against the machine's limits"), report.indexOf('## Against kube-apiserver + etcd (CRD)'));
    const kube = report.slice(report.indexOf('## Against kube-apiserver + etcd (CRD)'), report.indexOf('## Notes'));
    expect(limits).toMatch(/^\| backend +\| path +\| Cairn +\| the limit, same run +\| ratio +\| goal +\| met +\|$/m);
    expect(kube).toMatch(/^\| backend +\| path +\| Cairn +\| kube-apiserver \+ etcd \(CRD\), same run +\| ratio +\| goal +\| met +\|$/m);
    const tableRows = (section: string): string[] => section.split('\n').filter((line) => /^\| (PostgreSQL|PGlite) /.test(line));
    expect(tableRows(limits)).toHaveLength(results.rows.length);
    expect(tableRows(kube)).toHaveLength(results.rows.filter((r) => r.kube).length);
    for (const line of [...tableRows(limits), ...tableRows(kube)]) expect(line).not.toContain('failed');
    expect(kube).toMatch(
      /^\| PostgreSQL +\| watch: 10 watchers × 10 creates sent at 100\/s, p99 \(p50\) +\| [^|]+ ms[^|]+\| [^|]+ ms[^|]+\| [\d.]+ +\| ≤ 0\.5 × kube-apiserver +\| (yes|no) +\|$/m,
    );
    const charts = [...report.matchAll(/^### (PostgreSQL|PGlite|kube-apiserver \+ etcd \(CRD\))\n\n```text\n([^`]+)```/gm)];
    expect(charts.map((c) => c[1])).toEqual(['PostgreSQL', 'PGlite', 'kube-apiserver + etcd (CRD)']);
    for (const [, , chart] of charts) {
      expect(chart).toMatch(/ms ┤/);
      expect(chart).toContain('◂ ');
      expect(chart).toContain('99.9%');
    }
    expect(report).toContain('## At scale (issue 24)');
    // The outputs are committed: they must pass the repository's prettier check as written.
    for (const file of ['results.json', 'report.md']) {
      const path = join(outDir, file);
      const text = await readFile(path, 'utf8');
      expect(await prettier.check(text, { ...(await prettier.resolveConfig(join(root, 'bench', file))), filepath: path }), file).toBe(true);
    }
  });

  it('measures every scale figure on 20,000 seeded Pipelines, at 10,000 and at 20,000, into the same outputs', () => {
    expect(scaleRun.code, scaleRun.stderr.slice(-3000)).toBe(0);
    expect(scaleRun.stderr).toMatch(/read back 3 objects by name and \d+ by label selector through the API/);
    const postgres = scale?.postgres;
    expect(postgres?.meta).toMatchObject({ profile: 'quick', count: 20_000, postgres: expect.stringMatching(/^PostgreSQL 15\./) });
    expect(postgres?.notes).toEqual([]);
    expect(postgres?.stages.map((s) => s.seeded)).toEqual([10_000, 20_000]);
    for (const stage of postgres?.stages ?? []) expect(Number.isFinite(stage.firstPage.cluster.p99) && Number.isFinite(stage.createsPerSecond)).toBe(true);
    expect(postgres?.figures.filter((f) => f.item === 5).map((f) => f.id)).toEqual(['gc-cascade-background', 'gc-cascade-foreground']);
    for (const figure of postgres?.figures ?? []) {
      expect(Number.isFinite(figure.value), figure.id).toBe(true);
      if (figure.target) expect(typeof figure.met, figure.id).toBe('boolean');
    }
    expect(postgres?.figures.find((f) => f.id === 'namespace-watchers-foreign')?.value).toBe(0);
    const section = report.slice(report.indexOf('## At scale'));
    expect(section).toMatch(/^\| 6 +\| creates\/s at 20,000 over creates\/s at 10,000, same run +\|/m);
    expect(section.match(/Pipelines in the database \(log scale\)/g)).toHaveLength(2);
  });
});

describe('npm run bench -- --history --quick', () => {
  let outDir: string;
  let run: { code: number | null; stderr: string };
  let history: ResultsDocument['history'];
  let report: string;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'cairn-bench-history-test-'));
    run = await runQuickBench(outDir, '--history');
    history = (JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')) as ResultsDocument).history;
    report = await readFile(join(outDir, 'report.md'), 'utf8');
  }, 300_000);
  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it('seeds 2,000 Pipelines of 10 revisions and measures every figure of the reads of the past, with the event log’s size', () => {
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const postgres = history?.postgres;
    expect(postgres?.meta).toMatchObject({ profile: 'quick', count: 2_000, revisions: 10, postgres: expect.stringMatching(/^PostgreSQL 15\./) });
    expect(postgres?.notes).toEqual([]);
    expect(postgres?.seeding).toMatchObject({ objects: 2_000, events: 20_000 });
    expect(postgres!.seeding!.eventLogBytes).toBeGreaterThan(0);
    expect(postgres?.figures.map((f) => f.id)).toEqual([
      'history-list-first-cluster',
      'history-list-first-namespace',
      'history-list-continued',
      'history-get-exact',
      'history-first-10',
      'history-first-100',
      'history-continued',
      'history-rss-start',
      'history-rss-peak',
    ]);
    for (const figure of postgres?.figures ?? []) {
      expect(Number.isFinite(figure.value), figure.id).toBe(true);
      if (figure.target) expect(typeof figure.met, figure.id).toBe('boolean');
    }
    const section = report.slice(report.indexOf('## History at scale (issue 26)'));
    expect(section).toMatch(/^### PostgreSQL, 2,000 Pipelines × 10 revisions$/m);
    expect(section).toMatch(/^\| 3 +\| history subresource, first page \(limit 10\), p99 +\| [\d.]+ ms +\|/m);
  });
});
