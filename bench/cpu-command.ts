/**
 * `npx tsx bench/cpu-command.ts [--repo DIR]… [--mode tsx|compiled|both] [--rounds 3] [--creates 2000] [--gets 5000] [--profile DIR]`:
 * the server's CPU time per create and per GET (issue 28 item 2), read from /proc, a
 * figure a busy machine changes far less than a rate. Each repository given (a checkout
 * of Cairn; this one by default) runs in turn, round after round, each round a new
 * server on a new PostgreSQL database, so two versions are compared in alternating runs.
 * `--mode compiled` builds each checkout (`tsc -p tsconfig.build.json` into its `dist/`)
 * and runs the JavaScript, as the container image does; `tsx` (the default, as the rest
 * of the bench) runs the TypeScript through tsx; `both` alternates the two.
 *
 * With `--profile DIR` the servers run under `node --cpu-prof` and DIR receives, per
 * repository, the top functions of the creates and of the GETs (`*.md`) and their flame
 * graphs (`*.svg`); profiling costs CPU, so those rounds' figures are not the ones to quote.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CairnProcess } from './cairn-process.js';
import { inAlternatingRounds, loadAverages } from './checkout-rounds.js';
import { type CpuProfile, stacksBetween, topFunctionsTable } from './cpuprofile.js';
import { flameGraphSvg } from './flame-graph-svg.js';
import { pipelineBody, pipelinePath, pipelinesPath } from './pipeline-manifest.js';
import { cpuSeconds } from './process-cpu.js';
import { repoRoot } from './repo-root.js';
import { writeFormatted } from './results-file.js';
import { medianOf } from './stats.js';
import { expectStatus, keepAliveAgent, request, type ServerAccess } from './server-access.js';

const namespace = 'bench';
/** Requests in flight at once: enough to keep the server busy, few enough that the client's own CPU leaves it some. */
const concurrency = 8;
const warmUp = 300;

/** One round's figures for one repository. */
interface Round {
  readonly target: string;
  readonly createMicros: number;
  readonly getMicros: number;
  readonly load: string;
}

/** The monotonic clock in µs, as V8's profiles count it. */
const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** Sends `count` requests, `concurrency` at a time, each built by `make(i)`; throws on any non-2xx. */
async function drive(access: ServerAccess, count: number, make: (i: number) => { method: string; path: string; body?: string }): Promise<void> {
  const agent = keepAliveAgent(concurrency);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const { method, path, body } = make(next++);
          const response = await request(access, method, path, { agent, ...(body !== undefined && { body }) });
          if (response.status >= 300) throw new Error(`${method} ${path}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

/** Measures one server: CPU per create, then per GET; returns the load windows for the profile. */
async function measure(server: CairnProcess, creates: number, gets: number, tag: string) {
  const access = server.access;
  await expectStatus(access, 'POST', pipelinesPath(namespace), { body: pipelineBody('get-me') });
  await drive(access, warmUp, (i) => ({ method: 'POST', path: pipelinesPath(namespace), body: pipelineBody(`w-${tag}-${i}`) }));
  await drive(access, warmUp, () => ({ method: 'GET', path: pipelinePath(namespace, 'get-me') }));
  const createFrom = nowMicros();
  let cpu = cpuSeconds(server.pid);
  await drive(access, creates, (i) => ({ method: 'POST', path: pipelinesPath(namespace), body: pipelineBody(`c-${tag}-${i}`) }));
  const createMicros = ((cpuSeconds(server.pid) - cpu) * 1e6) / creates;
  const createTo = nowMicros();
  cpu = cpuSeconds(server.pid);
  await drive(access, gets, () => ({ method: 'GET', path: pipelinePath(namespace, 'get-me') }));
  const getMicros = ((cpuSeconds(server.pid) - cpu) * 1e6) / gets;
  const getTo = nowMicros();
  return { createMicros, getMicros, windows: { create: [createFrom, createTo], get: [createTo, getTo] } as const };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repo: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '3' },
      creates: { type: 'string', default: '2000' },
      gets: { type: 'string', default: '5000' },
      profile: { type: 'string' },
      mode: { type: 'string', default: 'tsx' },
    },
  });
  const mode = values.mode;
  if (mode !== 'tsx' && mode !== 'compiled' && mode !== 'both') throw new Error(`--mode: tsx, compiled or both, not ${mode}`);
  const compiledModes = mode === 'both' ? [false, true] : [mode === 'compiled'];
  const repos = (values.repo ?? [repoRoot]).map((r) => resolve(r));
  if (mode !== 'tsx') for (const repo of repos) build(repo);
  const targets = repos.flatMap((repo) => compiledModes.map((compiled) => ({ repo, compiled, name: `${repo}${compiled ? ' (compiled)' : ' (tsx)'}` })));
  const rounds = Number(values.rounds);
  const creates = Number(values.creates);
  const gets = Number(values.gets);
  const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
  const results: Round[] = [];
  const profileOut = (workDir: string, tag: string): string => join(workDir, `prof-${tag}`);
  await inAlternatingRounds(
    'cpu',
    rounds,
    targets,
    async (server, { repo, compiled, name }, { round, tag, workDir }) => {
      const measured = await measure(server, creates, gets, tag);
      // The profile is written as the server exits.
      await server.stop();
      const load = loadAverages();
      results.push({ target: name, createMicros: measured.createMicros, getMicros: measured.getMicros, load });
      console.log(
        `${name} round ${round + 1}: ${measured.createMicros.toFixed(0)} µs CPU per create, ${measured.getMicros.toFixed(1)} µs per GET (load ${load})`,
      );
      if (profileDir) await writeProfiles(profileOut(workDir, tag), profileDir, repo, compiled, measured.windows, { create: creates, get: gets });
    },
    ({ tag, workDir }) => (profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileOut(workDir, tag), '--cpu-prof-interval', '200'] } : {}),
  );
  for (const { name } of targets) {
    const mine = results.filter((r) => r.target === name);
    console.log(
      `${name}: median ${medianOf(mine.map((r) => r.createMicros)).toFixed(0)} µs per create, ${medianOf(mine.map((r) => r.getMicros)).toFixed(1)} µs per GET over ${mine.length} rounds`,
    );
  }
}

/** Builds `repo` into its `dist/` as `npm run build` does. */
function build(repo: string): void {
  console.log(`building ${repo}`);
  const result = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: repo, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${repo}: the build failed`);
}

/** Cuts the server's whole-life profile into the creates and the GETs, and writes each one's table and flame graph. */
async function writeProfiles(
  from: string,
  to: string,
  repo: string,
  compiled: boolean,
  windows: { readonly create: readonly [number, number]; readonly get: readonly [number, number] },
  requests: { readonly create: number; readonly get: number },
): Promise<void> {
  const file = (await readdir(from)).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${from}`);
  const text = await readFile(join(from, file), 'utf8');
  const profile = JSON.parse(text) as CpuProfile;
  await mkdir(to, { recursive: true });
  await writeFile(join(to, `${basename(repo)}${compiled ? '-compiled' : ''}.cpuprofile`), text);
  for (const what of ['create', 'get'] as const) {
    const stacks = stacksBetween(profile, windows[what][0], windows[what][1], compiled ? join(repo, 'dist') : repo);
    const name = `${basename(repo)}${compiled ? '-compiled' : ''}-${what}`;
    const title = `Cairn server CPU per ${what === 'create' ? 'create' : 'GET'} (${requests[what]} requests, 8 in flight, PostgreSQL)`;
    await writeFile(join(to, `${name}.svg`), flameGraphSvg(stacks, title, requests[what]));
    await writeFormatted(join(to, `${name}.md`), `# ${title}\n\n${topFunctionsTable(stacks, requests[what], 25)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
