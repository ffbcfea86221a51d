/**
 * kube-apiserver and etcd for the test control plane, built from the Go modules in
 * `tools/kube/` and `tools/etcd/` into a cache directory outside the clone.
 *
 * The directory is `${XDG_CACHE_HOME:-$HOME/.cache}/cairn/kube-<kubernetes>-etcd-<etcd>-<hash>`,
 * the hash covering the wrappers' go.mod, go.sum and sources and the build recipe, so a
 * fresh clone reuses the binaries and a changed pin builds new ones. A cold build takes
 * minutes: run it from vitest's global setup (no hook timeout there), not from a test file.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The built binaries and what they are. */
export interface KubeBinaries {
  /** The cache directory holding both binaries. */
  readonly directory: string;
  /** Absolute path of kube-apiserver. */
  readonly kubeApiserver: string;
  /** Absolute path of etcd. */
  readonly etcd: string;
  /** The pinned k8s.io/kubernetes version, e.g. `v1.34.4`. */
  readonly kubernetesVersion: string;
  /** The pinned go.etcd.io/etcd/server/v3 version, e.g. `v3.6.4`. */
  readonly etcdVersion: string;
}

/** Options of {@link ensureKubeBinaries}. */
export interface EnsureKubeBinariesOptions {
  /** Where progress lines go; stderr by default. */
  readonly log?: (line: string) => void;
  /** The cache root; `${XDG_CACHE_HOME:-$HOME/.cache}/cairn` by default. */
  readonly cacheRoot?: string;
}

/** The repository's `tools/` folder. */
const TOOLS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools');
/** The wrapper files whose contents decide the cache key. */
const KEYED_FILES = ['kube/go.mod', 'kube/go.sum', 'etcd/go.mod', 'etcd/go.sum', 'etcd/main.go'] as const;
const KUBE_APISERVER_PACKAGE = 'k8s.io/kubernetes/cmd/kube-apiserver';
/** Bump when the way the binaries are built changes, so caches built the old way are not reused. */
const RECIPE = 'go build -trimpath, CGO_ENABLED=0, GOTOOLCHAIN=local, version ldflags; recipe 1';
/** Written last into a finished build directory. */
const MANIFEST = 'build.json';
const PROGRESS_INTERVAL_MS = 15_000;
const LOCK_POLL_MS = 2_000;
const OUTPUT_TAIL_LINES = 40;

/** The cache root: `${XDG_CACHE_HOME:-$HOME/.cache}/cairn`. */
export function kubeCacheRoot(): string {
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'cairn');
}

/** What the wrappers pin, and the cache directory name derived from it. */
export interface PinnedKubeBinaries {
  readonly kubernetesVersion: string;
  readonly etcdVersion: string;
  /** `kube-<kubernetes>-etcd-<etcd>-<hash>`: the cache directory's name. */
  readonly key: string;
}

/** Reads the pinned versions from `tools/` and hashes the wrapper files into the cache key. */
export async function pinnedKubeBinaries(): Promise<PinnedKubeBinaries> {
  const hash = createHash('sha256').update(RECIPE);
  const contents = new Map<string, string>();
  for (const file of KEYED_FILES) {
    const text = await readFile(join(TOOLS_DIR, file), 'utf8');
    contents.set(file, text);
    hash.update(`\0${file}\0${text}`);
  }
  const kubernetesVersion = requiredVersion(contents.get('kube/go.mod') ?? '', 'k8s.io/kubernetes');
  const etcdVersion = requiredVersion(contents.get('etcd/go.mod') ?? '', 'go.etcd.io/etcd/server/v3');
  const key = `kube-${kubernetesVersion.slice(1)}-etcd-${etcdVersion.slice(1)}-${hash.digest('hex').slice(0, 12)}`;
  return { kubernetesVersion, etcdVersion, key };
}

/** The version a go.mod requires of `module`, in either `require` form (`go mod tidy` marks a tool's module `// indirect`). */
function requiredVersion(goMod: string, module: string): string {
  const escaped = module.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\d+\\.\\d+\\.\\d+)\\s*(?:\\/\\/.*)?$`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`tools/: no "require ${module} vX.Y.Z" line in go.mod`);
  return match[1];
}

/**
 * Returns the cached kube-apiserver and etcd for the pinned versions, building them first
 * when the cache has none (progress on stderr). Concurrent callers, in this process or
 * another, share one build through a lock directory; a lock left by a dead process is taken
 * over.
 *
 * @example
 * const binaries = await ensureKubeBinaries();
 * spawn(binaries.etcd, ['--data-dir', dir]);
 */
export async function ensureKubeBinaries(options: EnsureKubeBinariesOptions = {}): Promise<KubeBinaries> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[kube-binaries] ${line}\n`));
  const root = options.cacheRoot ?? kubeCacheRoot();
  const pinned = await pinnedKubeBinaries();
  const directory = join(root, pinned.key);
  const binaries: KubeBinaries = {
    directory,
    kubeApiserver: join(directory, 'kube-apiserver'),
    etcd: join(directory, 'etcd'),
    kubernetesVersion: pinned.kubernetesVersion,
    etcdVersion: pinned.etcdVersion,
  };
  await mkdir(root, { recursive: true });
  const lock = join(root, `${pinned.key}.lock`);
  for (;;) {
    if (await exists(join(directory, MANIFEST))) return binaries;
    if (await takeLock(lock)) break;
    const holder = await lockHolder(lock);
    if (holder !== undefined && !isAlive(holder)) {
      log(`removing a stale build lock of process ${holder}: ${lock}`);
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    log(`waiting for process ${holder ?? '?'} building ${pinned.key} (lock ${lock})`);
    while ((await exists(lock)) && !(await exists(join(directory, MANIFEST)))) await sleep(LOCK_POLL_MS);
  }
  try {
    if (await exists(join(directory, MANIFEST))) return binaries; // finished while we took the lock
    await build(pinned, directory, root, log);
    return binaries;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** Builds both binaries into a staging directory, checks them, and renames it into place. */
async function build(pinned: PinnedKubeBinaries, directory: string, root: string, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const go = await goVersion();
  log(`building kube-apiserver ${pinned.kubernetesVersion} and etcd ${pinned.etcdVersion} with ${go} into ${directory}`);
  log('a cold build takes several minutes on two cores; later runs reuse it');
  const staging = await mkdtemp(join(root, `${pinned.key}.staging-`));
  try {
    const [major, minor] = pinned.kubernetesVersion.slice(1).split('.');
    const versionFlags = [
      `-X k8s.io/component-base/version.gitVersion=${pinned.kubernetesVersion}`,
      `-X k8s.io/component-base/version.gitMajor=${major}`,
      `-X k8s.io/component-base/version.gitMinor=${minor}`,
      '-X k8s.io/component-base/version.gitTreeState=clean',
    ];
    const kubeSeconds = await goBuild('kube-apiserver', join(TOOLS_DIR, 'kube'), KUBE_APISERVER_PACKAGE, join(staging, 'kube-apiserver'), versionFlags, log);
    const etcdSeconds = await goBuild('etcd', join(TOOLS_DIR, 'etcd'), '.', join(staging, 'etcd'), [], log);

    const kubeVersion = await output(join(staging, 'kube-apiserver'), ['--version'], staging);
    if (!kubeVersion.includes(pinned.kubernetesVersion)) throw new Error(`kube-apiserver --version printed "${kubeVersion.trim()}"`);
    const etcdVersion = await output(join(staging, 'etcd'), ['--version'], staging);
    if (!etcdVersion.includes(pinned.etcdVersion.slice(1))) throw new Error(`etcd --version printed "${etcdVersion.trim()}"`);

    const manifest = {
      kubernetesVersion: pinned.kubernetesVersion,
      etcdVersion: pinned.etcdVersion,
      go,
      recipe: RECIPE,
      builtAt: new Date().toISOString(),
      seconds: { kubeApiserver: kubeSeconds, etcd: etcdSeconds },
    };
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(directory, { recursive: true, force: true }); // an unfinished directory has no manifest
    await rename(staging, directory);
    log(`built in ${seconds(started)} s: ${directory}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** `go version`'s answer, or an error saying Go is needed. */
async function goVersion(): Promise<string> {
  try {
    return (await output('go', ['version'], TOOLS_DIR)).trim().replace(/^go version /, '');
  } catch (error) {
    throw new Error(`the test control plane builds kube-apiserver and etcd with Go, and "go version" failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The environment of every go command: the machine's toolchain, static binaries, go.sum as committed. */
function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' };
}

/**
 * Runs `go build -v` for one binary, reporting how many of its packages have been compiled
 * every few seconds; returns the seconds it took.
 */
async function goBuild(name: string, moduleDir: string, pkg: string, out: string, xFlags: readonly string[], log: (line: string) => void): Promise<number> {
  const started = Date.now();
  log(`${name}: resolving packages (downloads modules on the first run)`);
  const deps = await runGo(['list', '-deps', pkg], moduleDir, (line) => {
    if (line.startsWith('go: downloading')) log(`${name}: ${line.slice(4)}`);
  });
  const total = deps.stdout.split('\n').filter((line) => line !== '').length;
  let compiled = 0;
  let lastReport = Date.now();
  const ldflags = ['-s', '-w', ...xFlags].join(' ');
  log(`${name}: compiling up to ${total} packages`);
  await runGo(['build', '-v', '-trimpath', '-ldflags', ldflags, '-o', out, pkg], moduleDir, (line) => {
    if (line.startsWith('go: downloading')) log(`${name}: ${line.slice(4)}`);
    else if (/^[\w.-]+(\/[\w.~-]+)*$/.test(line)) compiled++;
    if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
      lastReport = Date.now();
      log(`${name}: ${compiled}/${total} packages compiled, ${seconds(started)} s`);
    }
  });
  const took = seconds(started);
  log(`${name}: built in ${took} s (${compiled} packages compiled, the rest from Go's build cache)`);
  return took;
}

/** Runs a go command; each stderr line goes to `onLine`; a failure carries the output's tail. */
function runGo(args: readonly string[], cwd: string, onLine: (line: string) => void): Promise<{ stdout: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('go', [...args], { cwd, env: goEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.once('error', (error) => reject(new Error(`cannot run go ${args.join(' ')}: ${error.message}`)));
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

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 1000);
}
