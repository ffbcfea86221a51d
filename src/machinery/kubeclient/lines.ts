/** Splits a streamed response body into lines as they arrive (watch events, followed logs). */

/**
 * The lines of `body`, without their `\n`; a last line without one is yielded at the
 * end. When `signal` aborts, the body is cancelled (closing the connection) and the
 * lines end: the fetch's own abort cannot be relied on once the response streams,
 * since a Request's signal stops following its init signal when the Request is
 * garbage-collected.
 */
export async function* lines(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = (): void => void reader.cancel().catch(() => {});
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    let pending = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const parts = (pending + value).split('\n');
      pending = parts.pop()!;
      yield* parts;
    }
    if (pending && !signal?.aborted) yield pending;
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
  }
}
