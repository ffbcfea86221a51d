/**
 * `npm run dashboard-picture`: the picture of deploy/grafana/cairn.json in
 * docs/operating.md, made with real data and no Grafana. It starts Cairn (PGlite) and the
 * Prometheus server the test support builds from its Go module, has Prometheus scrape
 * Cairn's /metrics over TLS with the admin client certificate every 2 s, drives a bounded
 * load (watchers, creates, GETs, LISTs, updates, probes of /readyz) with the bench's load
 * generators, then asks Prometheus's `/api/v1/query_range` for every panel's own `expr`
 * and draws the panels in the dashboard's grid (bench/dashboard-svg.ts) into
 * docs/images/dashboard.svg.
 *
 * `--seconds N` sets the load's length (120 by default).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ensureGoPrograms } from '../test/support/go-programs.js';
import { CairnProcess } from './cairn-process.js';
import { killChildren, trackChild } from './children.js';
import { grafanaExpr, job, queryRange, scrapeSeconds } from './dashboard-queries.js';
import { dashboardSvg, type DashboardPanel, type PanelData, type RangeSeries } from './dashboard-svg.js';
import { freeLoopbackPort } from './free-port.js';
import { measureThroughput } from './http-load.js';
import { pipelineBody, pipelinePath, pipelinesPath } from './pipeline-manifest.js';
import { repoRoot } from './repo-root.js';
import { request } from './server-access.js';
import { openWatchers } from './watchers.js';

const namespace = 'dashboard';

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '120' } } });
  const seconds = Number(values.seconds);
  const log = (line: string) => process.stderr.write(`[dashboard-picture] ${line}\n`);
  const programs = await ensureGoPrograms();
  const dir = await mkdtemp(join(tmpdir(), 'cairn-dashboard-'));
  const cairn = await CairnProcess.start({ dataDir: join(dir, 'cairn'), logFile: join(dir, 'cairn.log') });
  try {
    const access = cairn.access;
    for (const [name, pem] of [
      ['ca.pem', access.caPem],
      ['admin.pem', access.certPem],
      ['admin-key.pem', access.keyPem],
    ] as const) {
      await writeFile(join(dir, name), pem, { mode: 0o600 });
    }
    // Scraped as docs/operating.md says /metrics is reached: HTTPS, a client certificate allowed to GET /metrics.
    const config = [
      'global:',
      `  scrape_interval: ${scrapeSeconds}s`,
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    scheme: https',
      '    tls_config:',
      `      ca_file: ${join(dir, 'ca.pem')}`,
      `      cert_file: ${join(dir, 'admin.pem')}`,
      `      key_file: ${join(dir, 'admin-key.pem')}`,
      '    static_configs:',
      `      - targets: ['${new URL(access.url).host}']`,
      '',
    ].join('\n');
    await writeFile(join(dir, 'prometheus.yml'), config);
    const port = await freeLoopbackPort();
    const prometheusUrl = `http://127.0.0.1:${port}`;
    const prometheus = spawn(
      programs.prometheus,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    trackChild(prometheus);
    await waitFor(
      'Prometheus scraping Cairn',
      async () => (await queryRange(prometheusUrl, `up{job="${job}"} == 1`, Date.now() / 1000 - 5, Date.now() / 1000)).length > 0,
    );
    log(`Prometheus ${programs.prometheusVersion} scrapes Cairn every ${scrapeSeconds} s; ${seconds} s of load`);

    const start = Math.floor(Date.now() / 1000);
    // kubelet's readiness probe, every 5 s, keeps kubernetes_healthcheck current.
    const probes = setInterval(() => void request(access, 'GET', '/readyz').catch(() => undefined), 5_000);
    const watchers = await openWatchers(access, namespace, 50, 'p-', () => undefined);
    let created = 0;
    let updated = 0;
    const phase = Math.max(5, Math.floor(seconds / 6));
    try {
      await sleep(phase * 1000);
      const creates = await measureThroughput(access, 8, phase, {
        method: 'POST',
        path: pipelinesPath(namespace),
        next: () => ({ body: pipelineBody(`p-${created++}`) }),
      });
      log(`creates: ${creates.perSecond.toFixed(0)}/s`);
      const gets = await measureThroughput(access, 8, phase, { method: 'GET', path: pipelinePath(namespace, 'p-0') });
      log(`GETs: ${gets.perSecond.toFixed(0)}/s`);
      const lists = await measureThroughput(access, 4, phase, { method: 'GET', path: `${pipelinesPath(namespace)}?limit=500` });
      log(`LISTs of 500: ${lists.perSecond.toFixed(0)}/s`);
      const updates = await measureThroughput(access, 8, phase, {
        method: 'PUT',
        path: pipelinePath(namespace, 'p-0'),
        next: () => {
          const name = `p-${updated++ % Math.max(1, created)}`;
          return { path: pipelinePath(namespace, name), body: pipelineBody(name, updated) };
        },
      });
      log(`updates: ${updates.perSecond.toFixed(0)}/s (${updates.failed} conflicts and failures)`);
    } finally {
      watchers.close();
    }
    await sleep(phase * 1000);
    clearInterval(probes);
    await sleep(2 * scrapeSeconds * 1000);
    const end = Math.floor(Date.now() / 1000);

    const dashboard = JSON.parse(await readFile(join(repoRoot, 'deploy/grafana/cairn.json'), 'utf8')) as { panels: DashboardPanel[] };
    const data = new Map<number, PanelData>();
    for (const panel of dashboard.panels) {
      const byTarget = new Map<string, RangeSeries[]>();
      for (const target of panel.targets) byTarget.set(target.refId, await queryRange(prometheusUrl, grafanaExpr(target.expr), start, end));
      data.set(panel.id, byTarget);
    }
    const caption =
      `deploy/grafana/cairn.json's queries over ${end - start} s of npm run dashboard-picture (PGlite; 50 watchers; creates, GETs, LISTs, updates), ` +
      `scraped every ${scrapeSeconds} s by Prometheus ${programs.prometheusVersion}, drawn by bench/dashboard-svg.ts — not a Grafana screenshot`;
    const out = join(repoRoot, 'docs/images/dashboard.svg');
    await writeFile(out, dashboardSvg(dashboard.panels, data, start, end, caption));
    log(`wrote ${out}`);
    prometheus.kill('SIGTERM');
  } finally {
    await cairn.stop();
    killChildren();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
