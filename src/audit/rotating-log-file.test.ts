/**
 * The audit log's rotation as lumberjack does it: the backup names, and which backups are kept
 * by count and age.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupTimestamp, OversizedWriteError, RotatingLogFile } from './rotating-log-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-rotating-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A clock that moves one second each time it is read, from 2026-03-01T10:00:00.250Z. */
function steppingClock(): () => Date {
  let t = Date.parse('2026-03-01T10:00:00.250Z');
  return () => new Date((t += 1000) - 1000);
}

const line = (n: number): string => `${String(n).padStart(9, '0')}\n`; // 10 bytes

describe('backupTimestamp', () => {
  it('formats as lumberjack does: 2006-01-02T15-04-05.000, in UTC', () => {
    expect(backupTimestamp(new Date('2026-11-24T07:08:09.012Z'))).toBe('2026-11-24T07-08-09.012');
  });
});

describe('RotatingLogFile', () => {
  it('creates the file and its directory, private to the user, as kube does', async () => {
    const path = join(dir, 'nested', 'audit.log');
    const file = await RotatingLogFile.open(path, { maxBytes: 100, maxBackups: 0, maxAgeDays: 0 });
    await file.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
  });

  it('rotates before a write would pass the maximum size, naming backups <name>-<timestamp>.<ext>', async () => {
    const path = join(dir, 'audit.log');
    const file = await RotatingLogFile.open(path, { maxBytes: 30, maxBackups: 0, maxAgeDays: 0, now: steppingClock() });
    await file.write([line(1), line(2)]);
    await file.write([line(3)]); // exactly 30 bytes: no rotation yet
    await file.write([line(4), line(5), line(6), line(7)]); // 4 rotates, 7 rotates again
    await file.close();
    expect((await readdir(dir)).sort()).toEqual(['audit-2026-03-01T10-00-00.250.log', 'audit-2026-03-01T10-00-01.250.log', 'audit.log']);
    expect(await readFile(join(dir, 'audit-2026-03-01T10-00-00.250.log'), 'utf8')).toBe(line(1) + line(2) + line(3));
    expect(await readFile(join(dir, 'audit-2026-03-01T10-00-01.250.log'), 'utf8')).toBe(line(4) + line(5) + line(6));
    expect(await readFile(path, 'utf8')).toBe(line(7));
  });

  it('keeps appending to the file it finds, counting what it holds', async () => {
    const path = join(dir, 'audit.log');
    await writeFile(path, line(0) + line(1));
    const file = await RotatingLogFile.open(path, { maxBytes: 30, maxBackups: 0, maxAgeDays: 0, now: steppingClock() });
    await file.write([line(2), line(3)]);
    await file.close();
    expect(await readFile(join(dir, 'audit-2026-03-01T10-00-00.250.log'), 'utf8')).toBe(line(0) + line(1) + line(2));
    expect(await readFile(path, 'utf8')).toBe(line(3));
  });

  it('keeps the newest maxBackups backups', async () => {
    const path = join(dir, 'audit.log');
    const file = await RotatingLogFile.open(path, { maxBytes: 10, maxBackups: 2, maxAgeDays: 0, now: steppingClock() });
    await writeFile(join(dir, 'other.log'), 'not a backup of audit.log\n');
    for (let n = 0; n < 6; n++) await file.write([line(n)]);
    await file.close();
    // Five rotations at 10:00:00 to 10:00:04; the two newest stay.
    expect((await readdir(dir)).sort()).toEqual(['audit-2026-03-01T10-00-03.250.log', 'audit-2026-03-01T10-00-04.250.log', 'audit.log', 'other.log']);
    expect(await readFile(join(dir, 'audit-2026-03-01T10-00-04.250.log'), 'utf8')).toBe(line(4));
    expect(await readFile(path, 'utf8')).toBe(line(5));
  });

  it('removes backups older than maxAgeDays by the time in their name', async () => {
    const path = join(dir, 'audit.log');
    await writeFile(join(dir, 'audit-2026-02-27T10-00-00.000.log'), 'three days old\n');
    await writeFile(join(dir, 'audit-2026-02-28T11-00-00.000.log'), 'not yet a day old\n');
    const file = await RotatingLogFile.open(path, { maxBytes: 10, maxBackups: 0, maxAgeDays: 1, now: steppingClock() });
    await file.write([line(0), line(1)]);
    await file.close();
    // The clock was read once on opening, so the rotation is at 10:00:01.
    expect((await readdir(dir)).sort()).toEqual(['audit-2026-02-28T11-00-00.000.log', 'audit-2026-03-01T10-00-01.250.log', 'audit.log']);
  });

  it('removes backups past the limits when it opens, as lumberjack does', async () => {
    for (const time of ['2026-02-28T10-00-00.000', '2026-02-28T11-00-00.000', '2026-02-28T12-00-00.000'])
      await writeFile(join(dir, `audit-${time}.log`), 'old\n');
    const file = await RotatingLogFile.open(join(dir, 'audit.log'), { maxBytes: 10, maxBackups: 2, maxAgeDays: 0, now: steppingClock() });
    await file.close();
    expect((await readdir(dir)).sort()).toEqual(['audit-2026-02-28T11-00-00.000.log', 'audit-2026-02-28T12-00-00.000.log', 'audit.log']);
  });

  it('keeps writing to the full file when it cannot be renamed, and rotates at the next write', async () => {
    const path = join(dir, 'audit.log');
    // A directory where the first backup would go makes that rename fail; being a directory, it is no backup to prune.
    await mkdir(join(dir, 'audit-2026-03-01T10-00-00.250.log', 'occupied'), { recursive: true });
    const file = await RotatingLogFile.open(path, { maxBytes: 10, maxBackups: 1, maxAgeDays: 0, now: steppingClock() });
    await file.write([line(1)]);
    await expect(file.write([line(2)])).rejects.toThrow();
    await file.write([line(3)]);
    await file.close();
    expect(await readFile(join(dir, 'audit-2026-03-01T10-00-01.250.log'), 'utf8')).toBe(line(1));
    expect(await readFile(path, 'utf8')).toBe(line(3));
    expect((await readdir(dir)).sort()).toEqual(['audit-2026-03-01T10-00-00.250.log', 'audit-2026-03-01T10-00-01.250.log', 'audit.log']);
  });

  it('never rotates with a maximum of 0', async () => {
    const path = join(dir, 'audit.log');
    const file = await RotatingLogFile.open(path, { maxBytes: 0, maxBackups: 1, maxAgeDays: 0 });
    for (let n = 0; n < 20; n++) await file.write([line(n)]);
    await file.close();
    expect(await readdir(dir)).toEqual(['audit.log']);
    expect((await stat(path)).size).toBe(200);
  });

  it('refuses a line larger than the maximum, as lumberjack does, and writes the others', async () => {
    const path = join(dir, 'audit.log');
    const file = await RotatingLogFile.open(path, { maxBytes: 15, maxBackups: 0, maxAgeDays: 0 });
    await expect(file.write([line(1), `${'x'.repeat(20)}\n`, line(2)])).rejects.toThrow(OversizedWriteError);
    await file.close();
    expect((await readdir(dir)).length).toBe(2);
    expect(await readFile(path, 'utf8')).toBe(line(2));
  });
});
