/**
 * `npm run bench -- --quick` measures every row end to end, on PostgreSQL and PGlite,
 * and writes well-formed outputs. Benchmarks are not tests: no figure is judged here,
 * only that each row was measured and reported.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import * as prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchResults } from '../bench/bench-results.js';
import { rowsFor, type Backend } from '../bench/rows.js';

const root = join(import.meta.dirname, '..');
const backends: readonly Backend[] = ['postgres', 'pglite'];

/** Runs `npm run bench -- --quick --out DIR` and resolves with its exit code and stderr (the progress). */
function runQuickBench(outDir: string): Promise<{ code: number | null; stderr: string }> {
  // The node running the tests (the project's own) runs tsx, whatever `node` is first on PATH.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'bench', '--', '--quick', '--out', outDir], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('npm run bench -- --quick', () => {
  let outDir: string;
  let run: { code: number | null; stderr: string };
  let results: BenchResults;
  let report: string;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'cairn-bench-test-'));
    run = await runQuickBench(outDir);
    results = JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')) as BenchResults;
    report = await readFile(join(outDir, 'report.md'), 'utf8');
  }, 300_000);
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
      if (spec.limit) {
        expect(Number.isFinite(row.limit?.median), where).toBe(true);
        expect(Number.isFinite(row.ratio), where).toBe(true);
      } else {
        expect(row.limit, where).toBeUndefined();
      }
      if (spec.secondary) expect(Number.isFinite(row.secondary?.median), where).toBe(true);
      if (spec.goal) expect(typeof row.goal?.met, where).toBe('boolean');
    }
  });

  it('keeps a latency curve of every watch row', () => {
    const watchRows = rowsFor(backends).filter(({ spec }) => spec.id.startsWith('watch-') || spec.id === 'cross-replica');
    expect(results.latencyCurves.map((c) => `${c.backend}/${c.id}`).sort()).toEqual(watchRows.map(({ spec, backend }) => `${backend}/${spec.id}`).sort());
    for (const curve of results.latencyCurves) {
      expect(curve.samples).toBeGreaterThan(0);
      expect(curve.points.every((p) => Number.isFinite(p.ms) && p.ms >= 0)).toBe(true);
      expect(curve.points.map((p) => p.ms)).toEqual([...curve.points.map((p) => p.ms)].sort((a, b) => a - b));
    }
  });

  it('writes a Markdown report with a row per result and a latency chart per backend', async () => {
    expect(report).toMatch(/^\| backend +\| path +\| Cairn +\| the limit, same run +\| ratio +\| goal +\| met +\|$/m);
    const tableRows = report.split('\n').filter((line) => /^\| (PostgreSQL|PGlite) /.test(line));
    expect(tableRows).toHaveLength(results.rows.length);
    for (const line of tableRows) expect(line).not.toContain('failed');
    const charts = [...report.matchAll(/^### (PostgreSQL|PGlite)\n\n```text\n([^`]+)```/gm)];
    expect(charts.map((c) => c[1])).toEqual(['PostgreSQL', 'PGlite']);
    for (const [, , chart] of charts) {
      expect(chart).toMatch(/ms ┤/);
      expect(chart).toContain('◂ ');
      expect(chart).toContain('99.9%');
    }
    // The outputs are committed: they must pass the repository's prettier check as written.
    for (const file of ['results.json', 'report.md']) {
      const path = join(outDir, file);
      const text = await readFile(path, 'utf8');
      expect(await prettier.check(text, { ...(await prettier.resolveConfig(join(root, 'bench', file))), filepath: path }), file).toBe(true);
    }
  });
});
