/**
 * A log file rotated by size, as kube-apiserver's audit log is by
 * gopkg.in/natefinch/lumberjack.v2: a write that would take the file past its maximum
 * size first renames it to `<name>-<UTC timestamp>.<ext>` (timestamp as Go's
 * `2006-01-02T15-04-05.000`) and starts a new one; then backups past the newest
 * `maxBackups`, or older than `maxAgeDays` by the timestamp in their name, are removed.
 */
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** When to rotate and which backups to keep. */
export interface RotationOptions {
  /** The largest the file may grow, in bytes; 0 never rotates (kube's `--audit-log-maxsize 0`). */
  readonly maxBytes: number;
  /** How many backups to keep; 0 keeps them all. */
  readonly maxBackups: number;
  /** How many days a backup is kept, by the time in its name; 0 keeps them regardless. */
  readonly maxAgeDays: number;
  /** The clock backups are named and aged by; tests give their own. */
  readonly now?: () => Date;
}

const dayMs = 24 * 60 * 60 * 1000;

/** lumberjack's backup timestamp, `2006-01-02T15-04-05.000` in UTC. */
export function backupTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

const backupTimestampPattern = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})$/;

/** Go's `filepath.Ext` of a base name: from its last dot, or ''. */
function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

/** One write refused because it alone is larger than the file may be (lumberjack refuses it too). */
export class OversizedWriteError extends Error {}

/** An append-only file that rotates itself; writes must not overlap (await each). */
export class RotatingLogFile {
  readonly #path: string;
  readonly #options: RotationOptions;
  readonly #now: () => Date;
  #file: FileHandle;
  #size: number;

  private constructor(path: string, options: RotationOptions, file: FileHandle, size: number) {
    this.#path = path;
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#file = file;
    this.#size = size;
  }

  /**
   * Opens (creating, with its directory, as kube's `ensureLogFile` does: 0700 and 0600)
   * the file at `path` for appending; backups past the limits go, as lumberjack prunes on opening.
   */
  static async open(path: string, options: RotationOptions): Promise<RotatingLogFile> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file = await open(path, 'a', 0o600);
    const rotating = new RotatingLogFile(path, options, file, (await file.stat()).size);
    await rotating.#removeOldBackups(rotating.#now);
    return rotating;
  }

  /**
   * Appends `lines` (each ending in a newline) in as few writes as fit, rotating before
   * one that would pass the maximum size. A line larger than the maximum is not written:
   * the others are, and then an {@link OversizedWriteError} is thrown.
   */
  async write(lines: readonly string[]): Promise<void> {
    const { maxBytes } = this.#options;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let oversized = 0;
    for (const line of lines) {
      const bytes = Buffer.from(line);
      if (maxBytes > 0 && bytes.length > maxBytes) {
        oversized++;
        continue;
      }
      if (maxBytes > 0 && this.#size + pendingBytes + bytes.length > maxBytes) {
        await this.#append(pending);
        pending = [];
        pendingBytes = 0;
        await this.#rotate();
      }
      pending.push(bytes);
      pendingBytes += bytes.length;
    }
    await this.#append(pending);
    if (oversized > 0) throw new OversizedWriteError(`${oversized} audit event(s) larger than the maximum log file size of ${maxBytes} bytes were dropped`);
  }

  async close(): Promise<void> {
    await this.#file.close();
  }

  async #append(chunks: readonly Buffer[]): Promise<void> {
    if (chunks.length === 0) return;
    const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    await this.#file.write(data);
    this.#size += data.length;
  }

  async #rotate(): Promise<void> {
    const { mode } = await this.#file.stat();
    const now = this.#now();
    const name = basename(this.#path);
    const ext = extension(name);
    const backup = join(dirname(this.#path), `${name.slice(0, name.length - ext.length)}-${backupTimestamp(now)}${ext}`);
    // Renamed while still open: should the rename fail, the file stays as it was and the next write tries again.
    await rename(this.#path, backup);
    const full = this.#file;
    this.#file = await open(this.#path, 'w', mode & 0o777);
    this.#size = 0;
    await full.close();
    await this.#removeOldBackups(() => now);
  }

  /** lumberjack's `millRunOnce`: the newest `maxBackups` backups stay, then those younger than `maxAgeDays`. */
  async #removeOldBackups(now: () => Date): Promise<void> {
    const { maxBackups, maxAgeDays } = this.#options;
    if (maxBackups === 0 && maxAgeDays === 0) return;
    const name = basename(this.#path);
    const ext = extension(name);
    const prefix = `${name.slice(0, name.length - ext.length)}-`;
    const backups = (await readdir(dirname(this.#path), { withFileTypes: true }))
      .flatMap((entry) => {
        const file = entry.name;
        if (!entry.isFile() || !file.startsWith(prefix) || !file.endsWith(ext)) return [];
        const match = backupTimestampPattern.exec(file.slice(prefix.length, file.length - ext.length));
        const time = match ? Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}Z`) : NaN;
        return Number.isNaN(time) ? [] : [{ file, time }];
      })
      .sort((a, b) => b.time - a.time);
    const cutoff = maxAgeDays > 0 ? now().getTime() - maxAgeDays * dayMs : -Infinity;
    const doomed = backups.filter((backup, i) => (maxBackups > 0 && i >= maxBackups) || backup.time < cutoff);
    await Promise.all(doomed.map(({ file }) => rm(join(dirname(this.#path), file), { force: true })));
  }
}
