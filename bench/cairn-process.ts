/**
 * A Cairn server in its own process, started as `npm start -- --no-controller` starts
 * it (`src/server/main.ts` through tsx), on a free loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from './free-port.js';
import { peakResidentBytes, residentBytes, resetPeakResident } from './process-memory.js';
import { repoRoot } from './repo-root.js';
import { pipelinesPath } from './pipeline-manifest.js';
import { accessFromKubeconfig, request, type ServerAccess } from './server-access.js';
import { trackChild, untrackChild } from './children.js';

/** Where a server keeps its data and which database it uses. */
export interface CairnOptions {
  /** `--data-dir`: its PKI and kubeconfig, and PGlite's files when there is no database URL. */
  readonly dataDir: string;
  /** `--database-url`; PGlite when undefined. */
  readonly databaseUrl?: string;
  /** Where the server's stdout and stderr go. */
  readonly logFile: string;
  /** `--workers`: 1 unless a row measures more, so that one pid's /proc figures are the whole server's. */
  readonly workers?: number;
  /** Further flags (`--garbage-collector off`, `--object-cache-size 0`, …). */
  readonly extraArgs?: readonly string[];
  /** The checkout whose `src/server/main.ts` runs (this one by default): the CPU bench compares two. */
  readonly repo?: string;
  /** Node flags before the script (`--cpu-prof`, …). */
  readonly nodeArgs?: readonly string[];
  /**
   * Runs `dist/src/server/main.js` (the checkout built with `npm run build`, as the
   * container image runs it) instead of the TypeScript through tsx, whose transpiled
   * modules cost CPU of their own (a `__name` call wherever a function is made).
   */
  readonly compiled?: boolean;
}

const readyTimeoutMs = 180_000;
const stopTimeoutMs = 20_000;
/** Settings a user's environment could carry that would change what the bench starts. */
const ignoredEnvironment = [
  'WORKERS',
  'PORT',
  'BIND_ADDRESS',
  'DATA_DIR',
  'DATABASE_URL',
  'LOG_LEVEL',
  'TLS_SANS',
  'KUBERNETES_SERVICE_HOST',
  'KUBERNETES_SERVICE_PORT',
];

/** A running server process. */
export class CairnProcess {
  readonly #child: ChildProcess;
  readonly pid: number;
  readonly access: ServerAccess;
  /** From spawning the process to `/readyz` and a LIST both answering 200, in ms. */
  readonly timeToReadyMs: number;

  private constructor(child: ChildProcess, access: ServerAccess, timeToReadyMs: number) {
    this.#child = child;
    this.pid = child.pid!;
    this.access = access;
    this.timeToReadyMs = timeToReadyMs;
  }

  /** Starts a server and resolves once it is ready and its API serves. */
  static async start(options: CairnOptions): Promise<CairnProcess> {
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      try {
        return await CairnProcess.#startOn(port, options);
      } catch (error) {
        // Another process may take the probed port before the server binds it.
        if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
      }
    }
  }

  static async #startOn(port: number, options: CairnOptions): Promise<CairnProcess> {
    const env = { ...process.env };
    for (const name of ignoredEnvironment) delete env[name];
    const script = options.compiled ? ['dist/src/server/main.js'] : ['--import', 'tsx', 'src/server/main.ts'];
    const args = [...(options.nodeArgs ?? []), ...script, '--no-controller', '--port', String(port), '--data-dir', options.dataDir];
    if (options.databaseUrl !== undefined) args.push('--database-url', options.databaseUrl);
    args.push('--workers', String(options.workers ?? 1), ...(options.extraArgs ?? []));
    const log = openSync(options.logFile, 'a');
    const logOffset = fstatSync(log).size;
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: options.repo ?? repoRoot, env, stdio: ['ignore', log, log] });
    closeSync(log);
    trackChild(child);
    const exited = once(child, 'exit').then(async ([code, signal]) => {
      const log = await readFile(options.logFile, 'utf8').catch(() => '');
      const tail = log.trimEnd().split('\n').slice(-10).join('\n');
      throw new Error(`Cairn exited before it was ready (${String(signal ?? `exit code ${String(code)}`)}); the end of ${options.logFile}:\n${tail}`);
    });
    exited.catch(() => undefined);
    try {
      const running = (): boolean => child.exitCode === null && child.signalCode === null;
      const access = await Promise.race([waitReady(port, join(options.dataDir, 'kubeconfig'), running), exited]);
      // One worker serving is not all: until the others are, the connections handed to them are answered 503.
      const workers = options.workers ?? 1;
      if (workers > 1) await Promise.race([bannerOf(options.logFile, logOffset, `with ${workers} workers`, running), exited]);
      return new CairnProcess(child, access, performance.now() - started);
    } catch (error) {
      child.kill('SIGKILL');
      untrackChild(child);
      throw error;
    }
  }

  /** Whether the process still runs. */
  get alive(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The server's resident memory in bytes. */
  residentBytes(): number {
    return residentBytes(this.pid);
  }

  /** Resets the peak RSS that {@link peakResidentBytes} reports; false if the kernel refuses. */
  resetPeak(): boolean {
    return resetPeakResident(this.pid);
  }

  /** The peak RSS since start or {@link resetPeak}, in bytes. */
  peakResidentBytes(): number {
    return peakResidentBytes(this.pid);
  }

  /** SIGTERM (graceful shutdown), then SIGKILL if it has not exited in 20 s. */
  async stop(): Promise<void> {
    if (this.alive) {
      const exited = once(this.#child, 'exit');
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    }
    untrackChild(this.#child);
  }
}

/**
 * Polls `/readyz` (anonymous, as a load balancer would) until it answers 200, then a
 * LIST as the admin user until that answers 200 too: ready is when the API serves (a
 * `/readyz` that turned 200 before the registry existed once made the first create 503).
 */
async function waitReady(port: number, kubeconfig: string, running: () => boolean): Promise<ServerAccess> {
  const deadline = performance.now() + readyTimeoutMs;
  const wait = async (what: string): Promise<void> => {
    if (!running()) throw new Error(`Cairn on port ${port} exited`);
    if (performance.now() > deadline) throw new Error(`Cairn on port ${port}: ${what} within ${readyTimeoutMs / 1000} s`);
    await sleep(25);
  };
  while ((await readyzStatus(port)) !== 200) await wait('/readyz was not 200');
  const access = await accessFromKubeconfig(kubeconfig);
  for (;;) {
    const answer = await request(access, 'GET', `${pipelinesPath('default')}?limit=1`).catch((error: unknown) => ({ status: 0, text: String(error) }));
    if (answer.status === 200) return access;
    await wait(`a LIST was not answered (${answer.status}: ${answer.text.slice(0, 200)})`);
  }
}

/** The status of one `GET /readyz`, or 0 when the connection fails. */
function readyzStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Resolves once `text` (the primary's start banner) is in `logFile` past `offset`. */
async function bannerOf(logFile: string, offset: number, text: string, running: () => boolean): Promise<void> {
  const deadline = performance.now() + readyTimeoutMs;
  while (running() && performance.now() < deadline) {
    if ((await readFile(logFile)).subarray(offset).includes(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Cairn did not print "${text}" within ${readyTimeoutMs / 1000} s`);
}
