/**
 * The Pipeline `log` subresource: appending lines (as runners and the controller do)
 * and reading them as they are appended, one line at a time, like `kubectl logs -f`.
 * OpenAPI describes the text/plain body as one string; here it streams.
 */
import type { Client } from 'openapi-fetch';
import { apiError } from './api-error.js';
import type { paths } from './generated/cairn-dev-v1.js';
import { lines } from './lines.js';
import { unwrap } from './unwrap.js';

const logPath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}/log';

/** Which lines a log read returns: kube's PodLogOptions, with `step` in place of `container`. */
export type LogOptions = NonNullable<paths[typeof logPath]['get']['parameters']['query']> & {
  /** Ends a followed read (the iteration then finishes without an error). */
  readonly signal?: AbortSignal;
};

/** Lines to append to one step's log. */
export interface LogAppend {
  /** A step of the Pipeline (`spec.steps[].name`); the server refuses others with 400. */
  readonly step: string;
  /** The lines, each without a line break. */
  readonly lines: readonly string[];
}

/** What identifies a Pipeline. */
export interface PipelineName {
  readonly namespace: string;
  readonly name: string;
}

/** Appends lines to a Pipeline's log; throws an ApiError (404 NotFound when the Pipeline does not exist). */
export async function appendLog(api: Client<paths>, pipeline: PipelineName, append: LogAppend): Promise<void> {
  await unwrap(api.POST(logPath, { params: { path: pipeline }, body: { step: append.step, lines: [...append.lines] } }));
}

/**
 * The lines of a Pipeline's log, as they arrive. With `follow: true` the iteration
 * goes on until the Pipeline is deleted or `signal` aborts.
 *
 * @example
 * for await (const line of readLog(api, { namespace: 'default', name: 'ingest' }, { follow: true, tailLines: 10, signal })) console.log(line);
 */
export async function* readLog(api: Client<paths>, pipeline: PipelineName, options: LogOptions = {}): AsyncGenerator<string> {
  const { signal, ...query } = options;
  const { data, error, response } = await api.GET(logPath, { params: { path: pipeline, query }, parseAs: 'stream', signal });
  if (!response.ok || !data) throw apiError(response.status, error);
  try {
    yield* lines(data, signal);
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}
