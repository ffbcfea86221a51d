/**
 * What deploy/ ships for watching Cairn holds up: promtool checks the Prometheus rules and
 * runs their unit tests (each alert fires on a series that breaks what it watches, and
 * stays quiet otherwise); every metric the rules and the Grafana dashboard query is one a
 * live Cairn exports, so a renamed metric cannot leave a panel blank or an alert silent;
 * and the dashboard is one Grafana loads (every panel with a datasource, a unique id, a
 * place in the grid and queries).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { openWatch } from '../support/watch-client.js';
import { pipeline, sharedTestServer } from '../support/test-server.js';

const root = resolve(import.meta.dirname, '../..');
const rulesFile = resolve(root, 'deploy/prometheus/cairn-rules.yaml');
const rulesTestFile = resolve(root, 'deploy/prometheus/cairn-rules.test.yaml');
const dashboardFile = resolve(root, 'deploy/grafana/cairn.json');

interface Rule {
  readonly record?: string;
  readonly alert?: string;
  readonly expr: string;
}
interface Target {
  readonly expr?: string;
  readonly datasource?: unknown;
  readonly refId?: string;
}
interface Panel {
  readonly id?: number;
  readonly type?: string;
  readonly title?: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
  readonly gridPos?: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly Target[];
}

/** PromQL's words that are not metric names where they stand without a following `(`. */
const promqlWords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

/**
 * The metric names a PromQL expression selects: identifiers outside strings, label
 * matchers (`{…}`), ranges (`[…]`) and grouping clauses (`by (…)`), not followed by `(`.
 */
function metricNames(expr: string): Set<string> {
  const names = new Set<string>();
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?=\s*(\()?)/g)) {
    const [name, call] = [match[0], match[1]];
    if (call !== undefined || promqlWords.has(name) || /^(?:inf|nan)$/i.test(name)) continue;
    // A unit's letter after a number (`5m`) is part of the number.
    const before = stripped[match.index - 1];
    if (before !== undefined && /[0-9.]/.test(before)) continue;
    names.add(name);
  }
  return names;
}

/** The sample names `/metrics` exports: each family's name, and a histogram's `_bucket`, `_sum` and `_count`. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (name === undefined) continue;
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}

async function rules(): Promise<Rule[]> {
  const file = parse(await readFile(rulesFile, 'utf8')) as { groups: { rules: Rule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

async function dashboard(): Promise<{ panels: Panel[]; templating: { list: { name: string; query?: unknown; definition?: string }[] } }> {
  return JSON.parse(await readFile(dashboardFile, 'utf8'));
}

const run = promisify(execFile);

describe('PromQL metric names', () => {
  it('are the selectors, not functions, label names, durations or keywords', () => {
    expect(
      [
        ...metricNames(
          'histogram_quantile(0.99, sum by (verb, le) (rate(a_bucket{job=~"$job", x="b{c}"}[$__rate_interval]))) / on (job) b or 0 * sum without (le) (c[5m] offset 1h) > 1e3',
        ),
      ].sort(),
    ).toEqual(['a_bucket', 'b', 'c']);
    expect([...metricNames('cairn:apiserver_request_errors:ratio_rate5m > (14.4 * 0.01)')]).toEqual(['cairn:apiserver_request_errors:ratio_rate5m']);
  });
});

describe('the Prometheus rules', () => {
  it('pass promtool check rules', async () => {
    const { stdout } = await run(inject('goPrograms').promtool, ['check', 'rules', rulesFile]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests: each alert fires on a broken series and stays quiet on a healthy one', async () => {
    const { stdout } = await run(inject('goPrograms').promtool, ['test', 'rules', rulesTestFile]);
    expect(stdout).toContain('SUCCESS');
    // Every alert the rules define is exercised by the unit tests.
    const tested = (parse(await readFile(rulesTestFile, 'utf8')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] }).tests
      .flatMap((test) => test.alert_rule_test ?? [])
      .filter((test) => (test.exp_alerts ?? []).length > 0)
      .map((test) => test.alertname);
    const alerts = (await rules()).flatMap((rule) => (rule.alert === undefined ? [] : [rule.alert]));
    expect(new Set(tested)).toEqual(new Set(alerts));
  });

  it('each alert has a severity, a for:, a summary, a description and a runbook in docs/operating.md', async () => {
    const operating = await readFile(resolve(root, 'docs/operating.md'), 'utf8');
    const anchors = new Set(
      [...operating.matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
        heading
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const file = parse(await readFile(rulesFile, 'utf8')) as {
      groups: { rules: (Rule & { for?: string; labels?: Record<string, string>; annotations?: Record<string, string> })[] }[];
    };
    for (const rule of file.groups.flatMap((group) => group.rules).filter((r) => r.alert !== undefined)) {
      expect(rule.for, rule.alert).toMatch(/^\d+[mh]$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.['severity']);
      expect(rule.annotations?.['summary'], rule.alert).toBeTruthy();
      expect(rule.annotations?.['description'], rule.alert).toBeTruthy();
      const runbook = rule.annotations?.['runbook_url'] ?? '';
      expect(runbook, rule.alert).toMatch(/^docs\/operating\.md#/);
      expect(anchors, runbook).toContain(runbook.slice(runbook.indexOf('#') + 1));
    }
  });
});

describe('the Grafana dashboard', () => {
  it('is one Grafana loads: every panel has a Prometheus datasource, a unique id, a place in the grid and queries', async () => {
    const { panels, templating } = await dashboard();
    expect(panels.length).toBeGreaterThanOrEqual(10);
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    expect(templating.list.map((variable) => variable.name)).toEqual(['datasource', 'job', 'instance']);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.type, panel.title).toBe('timeseries');
      const grid = panel.gridPos!;
      expect(grid.x + grid.w, panel.title).toBeLessThanOrEqual(24);
      expect(Math.min(grid.w, grid.h), panel.title).toBeGreaterThan(0);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.expr, panel.title).toMatch(/\S/);
        expect(target.expr, panel.title).toContain('job=~"$job", instance=~"$instance"');
      }
    }
    // No two panels overlap.
    const cells = new Set<string>();
    for (const { gridPos: g, title } of panels) {
      for (let x = g!.x; x < g!.x + g!.w; x++)
        for (let y = g!.y; y < g!.y + g!.h; y++) {
          expect(cells.has(`${x},${y}`), title).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });
});

describe('the metrics the rules and the dashboard query', () => {
  const server = sharedTestServer({ backend: 'pglite' });
  let exported: Set<string>;

  beforeAll(async () => {
    // Every verb and a watch, so the families that only exist once labelled are there too.
    const path = '/apis/cairn.dev/v1/namespaces/observed/pipelines';
    const watch = await openWatch(server(), `${path}?watch=true`);
    try {
      expect((await server().request('POST', path, { body: pipeline('p') })).status).toBe(201);
      await watch.waitFor(1);
    } finally {
      watch.close();
    }
    expect((await server().request('GET', `${path}/p`)).status).toBe(200);
    expect((await server().request('GET', path)).status).toBe(200);
    expect((await server().request('DELETE', `${path}/p`)).status).toBe(200);
    expect((await server().request('GET', '/readyz')).status).toBe(200);
    exported = exportedNames((await server().request('GET', '/metrics')).text);
  });

  it('are all exported by a live Cairn', async () => {
    const recorded = new Set((await rules()).flatMap((rule) => (rule.record === undefined ? [] : [rule.record])));
    const queried = new Map<string, string>();
    for (const rule of await rules()) for (const name of metricNames(rule.expr)) queried.set(name, `rule ${rule.record ?? rule.alert}`);
    for (const panel of (await dashboard()).panels) {
      for (const target of panel.targets ?? []) for (const name of metricNames(target.expr ?? '')) queried.set(name, `panel "${panel.title}"`);
    }
    expect(queried.size).toBeGreaterThanOrEqual(10);
    const missing = [...queried].filter(([name]) => !exported.has(name) && !recorded.has(name)).map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);
  });

  it('include what the dashboard exists to show', () => {
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds_bucket',
      'apiserver_current_inflight_requests',
      'apiserver_watch_events_total',
      'apiserver_longrunning_requests',
      'cairn_storage_write_batch_size_bucket',
      'cairn_event_log_lag',
      'cairn_database_pool_connections',
      'process_resident_memory_bytes',
      'kubernetes_healthcheck',
    ]) {
      expect(exported).toContain(name);
    }
  });
});
