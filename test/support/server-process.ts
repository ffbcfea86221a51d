/**
 * The real command, `src/server/main.ts`, as a child process, for the tests that signal it or
 * read what it prints. It runs as node with tsx as its loader, not through tsx's CLI: the CLI
 * relays SIGTERM and, when the child does not acknowledge it within 30 ms (a loaded machine),
 * kills it and exits 143.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { onJsonLines, until } from './json-lines.js';
import { seedPgliteDataDir } from './pglite-template.js';
import type { ServerEndpoint } from './test-server.js';

const root = join(import.meta.dirname, '..', '..');
/** How long a SIGTERM may take before {@link ServerProcess.stop} sends SIGKILL. */
const stopGraceMs = 15_000;
/** How long {@link ServerProcess.until} waits for output (a start on a loaded machine takes seconds). */
const outputTimeoutMs = 120_000;

/** A server process and what it printed so far. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly dataDir: string;
  /** Resolves with the exit code (null when a signal ended it) once the process ended and its output was read. */
  readonly exited: Promise<number | null>;
  /** The JSON lines of stdout so far: pino's log, and audit Events when the audit log is `-`. */
  readonly stdoutLines: readonly Record<string, unknown>[];
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Resolves once `done()` holds, checked at each line of output; rejects naming `what` if the process ends first. */
  until(what: string, done: () => boolean): Promise<void>;
  /** Its URL and admin PKI, once it logged `ready`. */
  endpoint(): Promise<ServerEndpoint>;
  /** SIGTERM, SIGKILL after a grace period; waits for the exit and removes the data directory unless it is kept. */
  stop(): Promise<void>;
}

/** Options of {@link spawnServer}. */
export interface ServerProcessOptions {
  /** Its data directory; a fresh one otherwise (PGlite's cluster copied in, without `--database-url`). Removed by `stop()` unless kept. */
  readonly dataDir?: string;
  /** `stop()` leaves the data directory, for the process that starts on it next (a restarted replica); its caller removes it. */
  readonly keepDataDir?: boolean;
  /** The port to listen on: a replica restarted where its load balancer sends; a free one (0) otherwise. */
  readonly port?: number;
  /** Variables added to the test's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Node's own flags, before the loader (e.g. `--inspect=127.0.0.1:0`). */
  readonly nodeArgs?: readonly string[];
}

/** Starts `src/server/main.ts --port PORT --data-dir DIR ...args` and returns at once. */
export async function spawnServer(args: readonly string[], options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'cairn-server-')));
  if (options.dataDir === undefined && !args.some((arg) => arg.startsWith('--database-url'))) await seedPgliteDataDir(dataDir);
  // The node running the tests (the project's own) first on PATH, for anything the server spawns.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, ...options.env };
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/server/main.ts', '--port', String(options.port ?? 0), '--data-dir', dataDir, ...args],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((listener) => listener());
  const stdoutLines: Record<string, unknown>[] = [];
  let stderr = '';
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      exitCode = code;
      resolve(code);
      notify();
    }),
  );
  onJsonLines(
    child.stdout,
    (line) => {
      stdoutLines.push(line as Record<string, unknown>);
      notify();
    },
    { lenient: true },
  );
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });

  const waitFor = async (what: string, done: () => boolean): Promise<void> => {
    await until(
      listeners,
      () => done() || exitCode !== undefined,
      outputTimeoutMs,
      () => what,
    );
    if (!done()) throw new Error(`the server exited (${exitCode}) before ${what}:\n${stderr}`);
  };
  return {
    child,
    dataDir,
    exited,
    stdoutLines,
    stderr: () => stderr,
    until: waitFor,
    async endpoint() {
      const url = (): string | undefined => stdoutLines.find((line) => line.msg === 'listening')?.url as string | undefined;
      await waitFor('it was ready', () => url() !== undefined && stdoutLines.some((line) => line.msg === 'ready'));
      const [servingCaPem, adminCertPem, adminKeyPem] = await Promise.all(
        ['serving-ca.crt', 'admin.crt', 'admin.key'].map((file) => readFile(join(dataDir, 'pki', file), 'utf8')),
      );
      return { url: url()!, pki: { servingCaPem, adminCertPem, adminKeyPem } };
    },
    async stop() {
      if (exitCode === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
        await exited;
        clearTimeout(timer);
      }
      if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
