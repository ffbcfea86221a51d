/**
 * Every Go program the tests run — kube-apiserver and etcd for the test control plane, the
 * client-go program that reads Cairn's protobuf, helm for the chart, promtool for the alerting
 * rules and the Prometheus server that scrapes a bench run for the dashboard's picture — built in one place:
 * vitest's global setup, with one recipe, one cache and one lock. A test file only receives
 * the paths.
 *
 * The programs come from the Go modules under `tools/`: `tools/kube/` (kube-apiserver from
 * `k8s.io/kubernetes`, and `client-go-protobuf/`, in the same module so that it links the
 * client-go and apimachinery packages kube-apiserver's build just compiled instead of
 * compiling them again), `tools/etcd/`, `tools/helm/` and `tools/prometheus/` (promtool and
 * prometheus, which share most of their packages). They go into
 * `${XDG_CACHE_HOME:-$HOME/.cache}/cairn/go-programs-<kubernetes>-etcd-<etcd>-helm-<helm>-prometheus-<prometheus>-<hash>`, the
 * hash covering every file under `tools/` and the build recipe, so a fresh clone reuses the
 * binaries and any changed source or pin builds them all again (mostly from Go's build cache).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The built programs and what they were built from. */
export interface GoPrograms {
  /** The cache directory holding every binary. */
  readonly directory: string;
  /** Absolute path of kube-apiserver. */
  readonly kubeApiserver: string;
  /** Absolute path of etcd. */
  readonly etcd: string;
  /** Absolute path of `tools/kube/client-go-protobuf` (usage in its main.go). */
  readonly clientGoProtobuf: string;
  /** Absolute path of helm. */
  readonly helm: string;
  /** Absolute path of promtool. */
  readonly promtool: string;
  /** Absolute path of the Prometheus server. */
  readonly prometheus: string;
  /** The pinned k8s.io/kubernetes version, e.g. `v1.34.4`. */
  readonly kubernetesVersion: string;
  /** The pinned go.etcd.io/etcd/server/v3 version, e.g. `v3.6.4`. */
  readonly etcdVersion: string;
  /** The pinned helm.sh/helm/v3 version, e.g. `v3.22.0`. */
  readonly helmVersion: string;
  /** The Prometheus release of the pinned github.com/prometheus/prometheus module, e.g. `v3.16.0` for v0.316.0. */
  readonly prometheusVersion: string;
}

/** Options of {@link ensureGoPrograms}. */
export interface EnsureGoProgramsOptions {
  /** Where progress lines go; stderr by default. */
  readonly log?: (line: string) => void;
  /** The cache root; {@link goProgramsCacheRoot} by default. */
  readonly cacheRoot?: string;
  /** The folder of the Go modules; the repository's `tools/` by default. */
  readonly toolsDir?: string;
  /** The go command; `go` by default. */
  readonly goCommand?: string;
  /** How long building (and waiting for another process's build) may take; {@link BUILD_TIME_LIMIT_MS} by default. */
  readonly timeLimitMs?: number;
}

/**
 * The time limit of a build. A cold build (empty Go module and build caches, all programs)
 * measured 4 min 55 s on this project's 2-core machine otherwise idle, and kube-apiserver
 * alone 10 min 15 s while test runs loaded both cores, and promtool then prometheus 26 min
 * with the machine loaded by four other runs (docs/testing.md, "The Go programs the tests build").
 * CI on a fresh machine has 90 minutes for the build and the whole suite (about 10 minutes),
 * so 60 minutes leaves room for a machine slower than the loaded one and still fails with
 * a clear message rather than being cut off.
 */
export const BUILD_TIME_LIMIT_MS = 60 * 60_000;

/** The repository's `tools/` folder. */
const TOOLS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools');
/** Bump when the way the programs are built changes, so caches built the old way are not reused. */
const RECIPE = 'go build -trimpath, CGO_ENABLED=0, GOTOOLCHAIN=local, -mod=readonly, version ldflags; recipe 2';
/** Written last into a finished build directory. */
const MANIFEST = 'build.json';
const PROGRESS_INTERVAL_MS = 15_000;
const LOCK_POLL_MS = 2_000;
const OUTPUT_TAIL_LINES = 40;

/** One program: where its package is and what it is linked with. */
interface Program {
  readonly file: 'kube-apiserver' | 'etcd' | 'client-go-protobuf' | 'helm' | 'promtool' | 'prometheus';
  readonly module: 'kube' | 'etcd' | 'helm' | 'prometheus';
  readonly package: string;
  readonly ldflags: (pinned: PinnedGoPrograms) => readonly string[];
}

/** What is built, in order: kube-apiserver first, whose packages the client-go program then reuses. */
const PROGRAMS: readonly Program[] = [
  { file: 'kube-apiserver', module: 'kube', package: 'k8s.io/kubernetes/cmd/kube-apiserver', ldflags: kubeVersionFlags },
  { file: 'client-go-protobuf', module: 'kube', package: './client-go-protobuf', ldflags: () => [] },
  { file: 'etcd', module: 'etcd', package: '.', ldflags: () => [] },
  { file: 'helm', module: 'helm', package: 'helm.sh/helm/v3/cmd/helm', ldflags: helmVersionFlags },
  { file: 'promtool', module: 'prometheus', package: 'github.com/prometheus/prometheus/cmd/promtool', ldflags: prometheusVersionFlags },
  { file: 'prometheus', module: 'prometheus', package: 'github.com/prometheus/prometheus/cmd/prometheus', ldflags: prometheusVersionFlags },
];

/** Without these kube-apiserver reports v0.0.0 and kubectl warns of version skew. */
function kubeVersionFlags(pinned: PinnedGoPrograms): readonly string[] {
  const [major, minor] = pinned.kubernetesVersion.slice(1).split('.');
  return [
    `-X k8s.io/component-base/version.gitVersion=${pinned.kubernetesVersion}`,
    `-X k8s.io/component-base/version.gitMajor=${major}`,
    `-X k8s.io/component-base/version.gitMinor=${minor}`,
    '-X k8s.io/component-base/version.gitTreeState=clean',
  ];
}

/**
 * As helm's Makefile links it: without these helm reports `v3.22` and assumes Kubernetes
 * 1.20 in `helm template` and `helm lint`, rather than the release of the client-go it is
 * built with (kube's minor is client-go's; its major is client-go's plus one).
 */
function helmVersionFlags(pinned: PinnedGoPrograms): readonly string[] {
  const [clientGoMajor, minor] = pinned.helmClientGoVersion.slice(1).split('.');
  const major = String(Number(clientGoMajor) + 1);
  return [
    `-X helm.sh/helm/v3/internal/version.version=${pinned.helmVersion}`,
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
    ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=${major}`,
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${minor}`,
    ]),
  ];
}

/** As Prometheus's .promu.yml links it: without it both programs report an empty version. */
function prometheusVersionFlags(pinned: PinnedGoPrograms): readonly string[] {
  return [`-X github.com/prometheus/common/version.Version=${pinned.prometheusVersion.slice(1)}`, '-X github.com/prometheus/common/version.Branch=HEAD'];
}

/**
 * The Prometheus release of its Go module's version: the module is tagged v0.3MM.P for
 * release v3.MM.P (v0.316.0 is v3.16.0), as a Go module cannot be v3 without /v3 import paths.
 */
export function prometheusRelease(moduleVersion: string): string {
  const match = /^v0\.3(\d{2})\.(\d+)$/.exec(moduleVersion);
  if (match?.[1] === undefined || match[2] === undefined)
    throw new Error(`tools/prometheus/: ${moduleVersion} is not a v0.3MM.P version of a Prometheus 3 release`);
  return `v3.${Number(match[1])}.${match[2]}`;
}

/** The cache root: `${XDG_CACHE_HOME:-$HOME/.cache}/cairn`. */
export function goProgramsCacheRoot(): string {
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'cairn');
}

/** What the modules pin, and the cache directory name derived from every source. */
export interface PinnedGoPrograms {
  readonly kubernetesVersion: string;
  readonly etcdVersion: string;
  readonly helmVersion: string;
  /** The k8s.io/client-go helm is built with, whose Kubernetes release helm assumes offline. */
  readonly helmClientGoVersion: string;
  /** The Prometheus release promtool and prometheus are built from, e.g. `v3.16.0`. */
  readonly prometheusVersion: string;
  /** `go-programs-<kubernetes>-etcd-<etcd>-helm-<helm>-prometheus-<prometheus>-<hash>`: the cache directory's name. */
  readonly key: string;
}

/** Reads the pinned versions and hashes every file under `toolsDir` (and the recipe) into the cache key. */
export async function pinnedGoPrograms(toolsDir: string = TOOLS_DIR): Promise<PinnedGoPrograms> {
  const hash = createHash('sha256').update(RECIPE);
  for (const file of await filesUnder(toolsDir)) {
    hash.update(`\0${relative(toolsDir, file)}\0`).update(await readFile(file));
  }
  const kubernetesVersion = requiredVersion(await readFile(join(toolsDir, 'kube/go.mod'), 'utf8'), 'k8s.io/kubernetes');
  const etcdVersion = requiredVersion(await readFile(join(toolsDir, 'etcd/go.mod'), 'utf8'), 'go.etcd.io/etcd/server/v3');
  const helmGoMod = await readFile(join(toolsDir, 'helm/go.mod'), 'utf8');
  const helmVersion = requiredVersion(helmGoMod, 'helm.sh/helm/v3');
  const helmClientGoVersion = requiredVersion(helmGoMod, 'k8s.io/client-go');
  const prometheusVersion = prometheusRelease(requiredVersion(await readFile(join(toolsDir, 'prometheus/go.mod'), 'utf8'), 'github.com/prometheus/prometheus'));
  const key = `go-programs-${kubernetesVersion.slice(1)}-etcd-${etcdVersion.slice(1)}-helm-${helmVersion.slice(1)}-prometheus-${prometheusVersion.slice(1)}-${hash.digest('hex').slice(0, 12)}`;
  return { kubernetesVersion, etcdVersion, helmVersion, helmClientGoVersion, prometheusVersion, key };
}

/** Every file below `dir`, sorted, so the key does not depend on the order the file system lists them in. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The version a go.mod requires of `module`, in either `require` form (`go mod tidy` marks a tool's module `// indirect`). */
function requiredVersion(goMod: string, module: string): string {
  const escaped = module.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\d+\\.\\d+\\.\\d+)\\s*(?:\\/\\/.*)?$`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`tools/: no "require ${module} vX.Y.Z" line in go.mod`);
  return match[1];
}

/**
 * Returns the cached programs for the sources under `tools/`, building them first when the
 * cache has none (progress on stderr). Concurrent callers, in this process or another, share
 * one build through a lock directory; a lock left by a dead process is taken over. Past the
 * time limit the build is stopped and the call fails, saying so.
 *
 * @example
 * const programs = await ensureGoPrograms();
 * spawn(programs.etcd, ['--data-dir', dir]);
 */
export async function ensureGoPrograms(options: EnsureGoProgramsOptions = {}): Promise<GoPrograms> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[go-programs] ${line}\n`));
  const root = options.cacheRoot ?? goProgramsCacheRoot();
  const timeLimitMs = options.timeLimitMs ?? BUILD_TIME_LIMIT_MS;
  const deadline = AbortSignal.timeout(timeLimitMs);
  const pinned = await pinnedGoPrograms(options.toolsDir);
  const directory = join(root, pinned.key);
  const programs: GoPrograms = {
    directory,
    kubeApiserver: join(directory, 'kube-apiserver'),
    etcd: join(directory, 'etcd'),
    clientGoProtobuf: join(directory, 'client-go-protobuf'),
    helm: join(directory, 'helm'),
    promtool: join(directory, 'promtool'),
    prometheus: join(directory, 'prometheus'),
    kubernetesVersion: pinned.kubernetesVersion,
    etcdVersion: pinned.etcdVersion,
    helmVersion: pinned.helmVersion,
    prometheusVersion: pinned.prometheusVersion,
  };
  const built = () => exists(join(directory, MANIFEST));
  await mkdir(root, { recursive: true });
  const lock = join(root, `${pinned.key}.lock`);
  for (;;) {
    if (await built()) return programs;
    if (await takeLock(lock)) break;
    const holder = await lockHolder(lock);
    if (holder !== undefined && !isAlive(holder)) {
      log(`removing a stale build lock of process ${holder}: ${lock}`);
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    log(`waiting for process ${holder ?? '?'} building ${pinned.key} (lock ${lock})`);
    while ((await exists(lock)) && !(await built())) {
      if (deadline.aborted) throw timeLimitError(timeLimitMs, `waiting for process ${holder ?? '?'}`);
      await sleep(LOCK_POLL_MS);
    }
  }
  try {
    if (await built()) return programs; // finished while we took the lock
    const build: Build = { pinned, toolsDir: options.toolsDir ?? TOOLS_DIR, go: options.goCommand ?? 'go', deadline, log };
    await buildAll(build, directory, root).catch((error: unknown) => {
      throw deadline.aborted ? timeLimitError(timeLimitMs, 'building', error) : error;
    });
    return programs;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** What one build needs. */
interface Build {
  readonly pinned: PinnedGoPrograms;
  readonly toolsDir: string;
  readonly go: string;
  /** Aborts every go command when the time limit passes. */
  readonly deadline: AbortSignal;
  readonly log: (line: string) => void;
}

function timeLimitError(limitMs: number, what: string, cause?: unknown): Error {
  const limit = limitMs >= 60_000 ? `${Math.round(limitMs / 60_000)} min` : `${Math.round(limitMs / 1000)} s`;
  return new Error(`the Go programs for the tests were not ready within ${limit} (${what}); see BUILD_TIME_LIMIT_MS in test/support/go-programs.ts`, {
    cause,
  });
}

/** Builds every program into a staging directory, checks the versions, and renames it into place. */
async function buildAll(build: Build, directory: string, root: string): Promise<void> {
  const started = Date.now();
  const { pinned, log } = build;
  const go = await goVersion(build);
  log(
    `building ${PROGRAMS.map((p) => p.file).join(', ')} (kube ${pinned.kubernetesVersion}, etcd ${pinned.etcdVersion}, helm ${pinned.helmVersion}, prometheus ${pinned.prometheusVersion}) with ${go} into ${directory}`,
  );
  log('a cold build takes several minutes on two cores; later runs reuse it');
  const staging = await mkdtemp(join(root, `${pinned.key}.staging-`));
  try {
    const seconds: Record<string, number> = {};
    for (const program of PROGRAMS) seconds[program.file] = await goBuild(build, program, join(staging, program.file));

    const kubeVersion = await output(join(staging, 'kube-apiserver'), ['--version'], staging);
    if (!kubeVersion.includes(pinned.kubernetesVersion)) throw new Error(`kube-apiserver --version printed "${kubeVersion.trim()}"`);
    const etcdVersion = await output(join(staging, 'etcd'), ['--version'], staging);
    if (!etcdVersion.includes(pinned.etcdVersion.slice(1))) throw new Error(`etcd --version printed "${etcdVersion.trim()}"`);
    const helmVersion = await output(join(staging, 'helm'), ['version', '--short'], staging);
    if (!helmVersion.includes(pinned.helmVersion)) throw new Error(`helm version --short printed "${helmVersion.trim()}"`);
    for (const program of ['promtool', 'prometheus']) {
      const printed = await output(join(staging, program), ['--version'], staging);
      if (!printed.includes(`version ${pinned.prometheusVersion.slice(1)}`)) throw new Error(`${program} --version printed "${printed.trim()}"`);
    }

    const manifest = { ...pinned, go, recipe: RECIPE, builtAt: new Date().toISOString(), seconds };
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(directory, { recursive: true, force: true }); // an unfinished directory has no manifest
    await rename(staging, directory);
    log(`built in ${secondsSince(started)} s: ${directory}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** `go version`'s answer, or an error saying Go is needed. */
async function goVersion(build: Build): Promise<string> {
  try {
    return (await runGo(build, ['version'], build.toolsDir, () => undefined)).stdout.trim().replace(/^go version /, '');
  } catch (error) {
    throw new Error(
      `the tests build kube-apiserver, etcd, a client-go program, helm, promtool and prometheus with Go, and "go version" failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** The environment of every go command: the machine's toolchain, static binaries, go.sum as committed. */
function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' };
}

/**
 * Runs `go build -v` for one program, reporting how many of its packages have been compiled
 * every few seconds; returns the seconds it took.
 */
async function goBuild(build: Build, program: Program, out: string): Promise<number> {
  const { log } = build;
  const name = program.file;
  const moduleDir = join(build.toolsDir, program.module);
  const started = Date.now();
  log(`${name}: resolving packages (downloads modules on the first run)`);
  const deps = await runGo(build, ['list', '-deps', program.package], moduleDir, (line) => {
    if (line.startsWith('go: downloading')) log(`${name}: ${line.slice(4)}`);
  });
  const total = deps.stdout.split('\n').filter((line) => line !== '').length;
  let compiled = 0;
  let lastReport = Date.now();
  const ldflags = ['-s', '-w', ...program.ldflags(build.pinned)].join(' ');
  log(`${name}: compiling up to ${total} packages`);
  await runGo(build, ['build', '-v', '-trimpath', '-ldflags', ldflags, '-o', out, program.package], moduleDir, (line) => {
    if (line.startsWith('go: downloading')) log(`${name}: ${line.slice(4)}`);
    else if (/^[\w.-]+(\/[\w.~-]+)*$/.test(line)) compiled++;
    if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
      lastReport = Date.now();
      log(`${name}: ${compiled}/${total} packages compiled, ${secondsSince(started)} s`);
    }
  });
  const took = secondsSince(started);
  log(`${name}: built in ${took} s (${compiled} packages compiled, the rest from Go's build cache)`);
  return took;
}

/** Runs a go command; each stderr line goes to `onLine`; a failure carries the output's tail. */
function runGo(build: Build, args: readonly string[], cwd: string, onLine: (line: string) => void): Promise<{ stdout: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(build.go, [...args], { cwd, env: goEnv(), stdio: ['ignore', 'pipe', 'pipe'], signal: build.deadline });
    let stdout = '';
    const tail: string[] = [];
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
        onLine(line);
      }
    });
    child.once('error', (error) => reject(new Error(`cannot run ${build.go} ${args.join(' ')}: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (partial !== '') tail.push(partial);
      if (code === 0) resolvePromise({ stdout });
      else reject(new Error(`go ${args.join(' ')} (in ${cwd}) failed with ${signal ?? `exit code ${code}`}:\n${tail.join('\n')}`));
    });
  });
}

/** Runs a program and returns its stdout and stderr together; rejects on a non-zero exit. */
function output(program: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolvePromise(text) : reject(new Error(`${program} ${args.join(' ')} exited ${code}: ${text.trim()}`))));
  });
}

/** Creates the lock directory, recording our pid; false when another holder has it. */
async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  await writeFile(join(lock, 'pid'), String(process.pid));
  return true;
}

/** The pid recorded in a lock directory, if readable. */
async function lockHolder(lock: string): Promise<number | undefined> {
  const text = await readFile(join(lock, 'pid'), 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function secondsSince(since: number): number {
  return Math.round((Date.now() - since) / 1000);
}
