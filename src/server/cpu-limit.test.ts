/** The default of `--workers`: a container's CPU limit read from cgroup v2 and v1 files. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cgroupCpuLimit, usableCores } from './cpu-limit.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-cgroup-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes `files` (path relative to the fixture's root → content) as a cgroup filesystem would show them. */
async function cgroup(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

describe('cgroupCpuLimit', () => {
  it('reads cgroup v2 cpu.max as quota over period', async () => {
    await cgroup({ 'cpu.max': '150000 100000\n' });
    expect(cgroupCpuLimit(root)).toBe(1.5);
  });

  it('reads "max" in cpu.max as no limit', async () => {
    await cgroup({ 'cpu.max': 'max 100000\n' });
    expect(cgroupCpuLimit(root)).toBeUndefined();
  });

  it('reads cgroup v1 cfs quota and period, -1 being no limit', async () => {
    await cgroup({ 'cpu,cpuacct/cpu.cfs_quota_us': '200000\n', 'cpu,cpuacct/cpu.cfs_period_us': '100000\n' });
    expect(cgroupCpuLimit(root)).toBe(2);
    await cgroup({ 'cpu,cpuacct/cpu.cfs_quota_us': '-1\n' });
    expect(cgroupCpuLimit(root)).toBeUndefined();
  });

  it('is undefined without cgroup files', () => {
    expect(cgroupCpuLimit(root)).toBeUndefined();
  });
});

describe('usableCores', () => {
  it('is the machine’s cores bounded by the limit rounded up, at least 1', async () => {
    expect(usableCores(root, 8)).toBe(8);
    await cgroup({ 'cpu.max': '150000 100000' });
    expect(usableCores(root, 8)).toBe(2);
    expect(usableCores(root, 1)).toBe(1);
    await cgroup({ 'cpu.max': '10000 100000' });
    expect(usableCores(root, 8)).toBe(1);
  });
});
