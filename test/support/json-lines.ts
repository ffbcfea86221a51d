/**
 * Newline-delimited JSON from a stream: a server's pino log, or a watch's events.
 */
import type { Readable } from 'node:stream';

/**
 * Calls `onValue` with every line of `stream` parsed as JSON, as the lines complete
 * (and the last one at the end). A line that is not JSON is skipped when `lenient`
 * (a log interleaves other output), and throws otherwise (a watch stream must not).
 */
export function onJsonLines(stream: Readable, onValue: (value: unknown) => void, options: { lenient?: boolean } = {}): void {
  let pending = '';
  const parse = (line: string): void => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (options.lenient) return;
      throw error;
    }
    onValue(value);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) parse(line);
  });
  stream.on('end', () => parse(pending));
}

/**
 * Resolves once `ready()` holds, checking whenever `listeners` are called; rejects
 * after `ms` with `describe()` saying what was seen.
 */
export function until(listeners: Set<() => void>, ready: () => boolean, ms: number, describe: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!ready()) return;
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`waited ${ms} ms for ${describe()}`));
    }, ms);
    const cleanup = (): void => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
    check();
  });
}
