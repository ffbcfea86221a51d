/**
 * Splitting a response body into lines, as the typed client reads logs, and ending it when a
 * signal aborts.
 */
import { describe, expect, it } from 'vitest';
import { lines } from './lines.js';

const encoder = new TextEncoder();

/** A body that sends `chunks` and then stays open, like a quiet watch; `cancelled` resolves when it is cancelled. */
function openBody(chunks: readonly string[]) {
  let cancelled!: () => void;
  const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
    },
    cancel: () => cancelled(),
  });
  return { body, wasCancelled };
}

describe('lines', () => {
  it('splits chunks into lines, joining a line split across chunks', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of ['a\nb', 'c\n', 'd']) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const read: string[] = [];
    for await (const line of lines(body)) read.push(line);
    expect(read).toEqual(['a', 'bc', 'd']);
  });

  it('ends and cancels the body when the signal aborts, though the body stays open', async () => {
    const { body, wasCancelled } = openBody(['first\n']);
    const abort = new AbortController();
    const read: string[] = [];
    for await (const line of lines(body, abort.signal)) {
      read.push(line);
      abort.abort();
    }
    expect(read).toEqual(['first']);
    await wasCancelled;
  });
});
