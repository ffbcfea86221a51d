/**
 * How many cores this process may use: what the machine offers (`os.availableParallelism`,
 * which follows the CPU affinity) bounded by a container's CPU limit, which Node does not
 * read. `--workers` defaults to it, so that a pod limited to 2 CPUs on a 64-core node runs
 * 2 workers, not 64 that the kernel would throttle.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** Where the cgroup filesystem is mounted in a container (and on a host with systemd). */
export const cgroupRoot = '/sys/fs/cgroup';

/** A file's text, or undefined when it cannot be read (no cgroup, another version). */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A quota over a period as CPUs; undefined when unlimited or unreadable. */
function cpus(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  // cgroup v2 writes "max" for no limit, v1 writes -1.
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return q / p;
}

/**
 * The CPU limit of the cgroup under `root`, in CPUs (`1.5` for a quota of 150000 µs per
 * 100000 µs): cgroup v2's `cpu.max`, else cgroup v1's `cpu.cfs_quota_us` and
 * `cpu.cfs_period_us`; undefined when there is no limit.
 */
export function cgroupCpuLimit(root: string = cgroupRoot): number | undefined {
  const max = readText(join(root, 'cpu.max'));
  if (max !== undefined) {
    const [quota, period] = max.split(/\s+/);
    return cpus(quota, period);
  }
  for (const controller of ['cpu', 'cpu,cpuacct', 'cpuacct,cpu']) {
    const dir = join(root, controller);
    const limit = cpus(readText(join(dir, 'cpu.cfs_quota_us')), readText(join(dir, 'cpu.cfs_period_us')));
    if (limit !== undefined) return limit;
  }
  return undefined;
}

/**
 * The cores this process may use: the machine's, bounded by the cgroup's limit rounded
 * up (as Go 1.25 sets GOMAXPROCS: a limit of 1.5 CPUs is 2 workers, each throttled a
 * little, rather than 1 leaving half a CPU idle), at least 1.
 */
export function usableCores(root: string = cgroupRoot, cores: number = availableParallelism()): number {
  const limit = cgroupCpuLimit(root);
  return Math.max(1, limit === undefined ? cores : Math.min(cores, Math.ceil(limit)));
}
