/**
 * The drawing of docs/images/dashboard.svg (bench/dashboard-svg.ts): from a fixed
 * Prometheus answer for every query of deploy/grafana/cairn.json it draws every panel,
 * titled, in the dashboard's grid, with a line and a legend entry per series; a panel
 * whose queries answered nothing says so. The picture's real data comes from
 * `npm run dashboard-picture`, not from the tests.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grafanaExpr } from '../../bench/dashboard-queries.js';
import { dashboardSvg, formatValue, legend, type DashboardPanel, type PanelData } from '../../bench/dashboard-svg.js';

const root = resolve(import.meta.dirname, '../..');

async function panels(): Promise<DashboardPanel[]> {
  return (JSON.parse(await readFile(resolve(root, 'deploy/grafana/cairn.json'), 'utf8')) as { panels: DashboardPanel[] }).panels;
}

/** What query_range answers: two series for each query, rising. */
function answer(panel: DashboardPanel): PanelData {
  return new Map(
    panel.targets.map((target) => [
      target.refId,
      ['a', 'b'].map((value, i) => ({
        metric: { verb: `${value}-verb`, instance: `${value}:8443`, state: value, kind: value, resource: value, request_kind: value },
        values: Array.from({ length: 30 }, (_, t) => [1_000 + 2 * t, String((i + 1) * t)] as const),
      })),
    ]),
  );
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

describe("the dashboard's picture", () => {
  it('draws every panel in its place in the grid, with its title, a line and a legend entry per series', async () => {
    const all = await panels();
    const svg = dashboardSvg(all, new Map(all.map((panel) => [panel.id, answer(panel)])), 1_000, 1_058, 'a caption');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('>a caption</text>');
    for (const panel of all) {
      expect(svg).toContain(`<g transform="translate(${panel.gridPos.x * 50 + 3},${panel.gridPos.y * 30 + 3})">`);
      expect(svg).toContain(`class="title">${escapeXml(panel.title)}</text>`);
    }
    const lines = all.reduce((sum, panel) => sum + panel.targets.length * 2, 0);
    expect(svg.match(/<path d="M/g)).toHaveLength(lines);
    expect(svg).not.toContain('No data');
    // Each line's first point is at the plot's left edge, its last at the right edge.
    expect(svg).toMatch(/<path d="M58\.0,[\d.]+L/);
  });

  it('says "No data" where a query answered nothing', async () => {
    const [first, ...rest] = await panels();
    const svg = dashboardSvg([first, ...rest], new Map(rest.map((panel) => [panel.id, answer(panel)])), 1_000, 1_058, '');
    expect(svg.match(/No data/g)).toHaveLength(1);
  });

  it('ticks a bytes axis in round MiB', () => {
    const memory: DashboardPanel = {
      id: 1,
      title: 'RSS',
      gridPos: { x: 0, y: 0, w: 8, h: 8 },
      fieldConfig: { defaults: { unit: 'bytes' } },
      targets: [{ refId: 'A', expr: 'x' }],
    };
    const data = new Map([[1, new Map([['A', [{ metric: {}, values: [[0, String(700 * 2 ** 20)] as const] }]]])]]);
    const ticks = [...dashboardSvg([memory], data, 0, 60, '').matchAll(/text-anchor="end">([^<]*)</g)].map(([, tick]) => tick);
    expect(ticks).toEqual(['0 B', '200 MiB', '400 MiB', '600 MiB', '800 MiB']);
  });

  it("labels axes in the panel's unit and series with Grafana's legend format", () => {
    expect(formatValue(0.25, 's')).toBe('250 ms');
    expect(formatValue(2, 's')).toBe('2 s');
    expect(formatValue(0.05, 'percentunit')).toBe('5%');
    expect(formatValue(150 * 1024 * 1024, 'bytes')).toBe('150 MiB');
    expect(formatValue(2500, 'short')).toBe('2.50k');
    expect(legend('{{verb}} on {{ instance }}', { verb: 'LIST', instance: 'a:8443' })).toBe('LIST on a:8443');
  });

  it("asks Prometheus for each panel's expr as Grafana would, for every job and instance", async () => {
    for (const panel of await panels()) {
      for (const target of panel.targets) expect(grafanaExpr(target.expr)).not.toContain('$');
    }
    expect(grafanaExpr('rate(x{job=~"$job", instance=~"$instance"}[$__rate_interval])')).toBe('rate(x{job=~"cairn", instance=~".*"}[8s])');
  });
});
