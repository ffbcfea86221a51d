/** Splits a streamed response body into lines as they arrive (watch events, followed logs). */

/** The lines of `body`, without their `\n`; a last line without one is yielded at the end. */
export async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = '';
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    yield* parts;
  }
  if (pending) yield pending;
}
