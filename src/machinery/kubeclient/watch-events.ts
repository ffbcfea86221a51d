/**
 * The events of one watch stream as they arrive: kube's JSON watch encoding is one
 * `{"type": …, "object": …}` document per line. The typed client's resuming watch and
 * the RestClient's single stream both read their bodies through this.
 */
import { lines } from './lines.js';

/** One event of a watch, as the wire carries it (ADDED, MODIFIED, DELETED, BOOKMARK or ERROR). */
export interface RawWatchEvent {
  readonly type: string;
  readonly object: unknown;
}

/**
 * The events of `body` until it ends or `signal` aborts (see `lines`); blank lines
 * are skipped and a line that is not JSON throws its SyntaxError.
 */
export async function* watchEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<RawWatchEvent> {
  for await (const line of lines(body, signal)) {
    if (line.trim() !== '') yield JSON.parse(line) as RawWatchEvent;
  }
}
