/**
 * The database parts a test starts beside Cairn (etcd, Patroni, HAProxy) are daemons
 * that start children of their own: each runs in its own process group, its output in
 * a log file, so that stopping it — or a crashed test process exiting — kills the whole
 * group and leaves no stray process behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';

/** A daemon running as the leader of its own process group. */
export interface ProcessGroup {
  /** The group's id: the daemon's pid. */
  readonly pid: number;
  readonly child: ChildProcess;
  /** The file its stdout and stderr go to. */
  readonly logFile: string;
  /** The last lines of its log, for failure messages. */
  logTail(lines?: number): string;
  /** Whether the daemon itself has exited. */
  readonly exited: boolean;
  /** Sends `signal` to every process of the group, and waits for the daemon to exit when it is SIGKILL. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const liveGroups = new Set<number>();
let exitHookRegistered = false;

/** Kills a process group, ignoring one that is gone already. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Starts `program` detached (a new process group), stdin closed and its output appended
 * to `logFile`. As root, `asUser` runs it through `runuser` (postgres refuses root).
 */
export function startProcessGroup(
  program: string,
  args: readonly string[],
  options: { logFile: string; cwd: string; asUser?: string; env?: NodeJS.ProcessEnv },
): ProcessGroup {
  const [file, argv] =
    options.asUser !== undefined && process.getuid?.() === 0 ? ['runuser', ['-u', options.asUser, '--', program, ...args]] : [program, [...args]];
  const log = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, argv, { cwd: options.cwd, detached: true, stdio: ['ignore', log, log], env: options.env ?? process.env });
  } finally {
    closeSync(log);
  }
  if (child.pid === undefined) throw new Error(`cannot start ${program}`);
  const pid = child.pid;
  liveGroups.add(pid);
  registerExitHook();
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  child.once('error', () => undefined);
  return {
    pid,
    child,
    logFile: options.logFile,
    get exited() {
      return exited;
    },
    logTail(lines = 30) {
      try {
        return readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      killGroup(pid, signal);
      if (signal === 'SIGKILL') {
        if (!exited) await exit;
        liveGroups.delete(pid);
      }
    },
  };
}

/** Makes sure a crashed or careless test process leaves none of its groups running. */
function registerExitHook(): void {
  if (exitHookRegistered) return;
  exitHookRegistered = true;
  process.once('exit', () => {
    for (const pid of liveGroups) killGroup(pid);
  });
}
