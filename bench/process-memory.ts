/** A process's resident memory, read from /proc (Linux), for the memory rows. */
import { readFileSync, writeFileSync } from 'node:fs';
import { sumOverChildren } from './process-cpu.js';

/** One `Vm*` field of /proc/PID/status in bytes; undefined when the process is gone. */
function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** The resident set size of `pid` in bytes. */
export function residentBytes(pid: number): number {
  const rss = statusField(pid, 'VmRSS');
  if (rss === undefined) throw new Error(`process ${pid} has no /proc status: has it exited?`);
  return rss;
}

/**
 * Resets the peak RSS of `pid` to its current RSS (writing 5 to /proc/PID/clear_refs),
 * so {@link peakResidentBytes} then reports the peak of what follows. False when the
 * kernel or permissions do not allow it.
 */
export function resetPeakResident(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak RSS of `pid` in bytes since it started or since {@link resetPeakResident}. */
export function peakResidentBytes(pid: number): number {
  const peak = statusField(pid, 'VmHWM');
  if (peak === undefined) throw new Error(`process ${pid} has no /proc status: has it exited?`);
  return peak;
}

/**
 * The proportional set size of `pid` and its live children in bytes: each page shared by
 * n processes counts 1/n in each, so PostgreSQL's shared buffers, mapped by every
 * backend, count once in the sum (their RSS would count them once per backend).
 */
export function processTreeProportionalBytes(pid: number): number {
  const pss = (p: number): number => {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
    if (!match) throw new Error(`/proc/${p}/smaps_rollup has no Pss line`);
    return Number(match[1]) * 1024;
  };
  return pss(pid) + sumOverChildren(pid, pss);
}

/** Bytes as MiB, the unit of the memory rows. */
export const mib = (bytes: number): number => bytes / 2 ** 20;
