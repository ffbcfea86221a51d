/** A process's CPU time, read from /proc (Linux): what a figure cost beside how long it took on a shared machine. */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** The fields of /proc/PID/stat after the command name (the 3rd field, the state, first). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (2nd field) may hold spaces: count the fields after its closing parenthesis.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The CPU time (user and system, every thread) `pid` has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** The pids of the live children of `pid`. */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** `read(child)` summed over the live children of `pid`; a child that exits meanwhile counts 0. */
export function sumOverChildren(pid: number, read: (child: number) => number): number {
  return childPids(pid).reduce((sum, child) => {
    try {
      return sum + read(child);
    } catch {
      return sum;
    }
  }, 0);
}

/**
 * The CPU seconds `pid` and its live children (a primary's workers, PostgreSQL's backends)
 * have used so far, and those of its children that exited and were waited for: a backend
 * that ends between two readings still counts (its whole life, a little more than the
 * window's share).
 */
export function processTreeCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  const reaped = (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  return cpuSeconds(pid) + reaped + sumOverChildren(pid, cpuSeconds);
}
