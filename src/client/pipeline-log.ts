/**
 * The Pipeline `log` subresource: appending lines (as runners and the controller do)
 * and reading them as they are appended, one line at a time, like `kubectl logs -f`.
 * OpenAPI describes the text/plain body as one string; here it streams.
 */
import type { Client } from 'openapi-fetch';
import { apiError } from '../machinery/kubeclient/api-error.js';
import type { paths } from './paths.js';
import { lines } from '../machinery/kubeclient/lines.js';
import { pipelineSubresourcePath, type PipelineName, type PipelineRequestOptions } from './pipeline-name.js';
import { unwrap } from './unwrap.js';

const logPath = (options: PipelineRequestOptions) => pipelineSubresourcePath('log', options.version);

/** Which lines a log read returns: kube's PodLogOptions, with `step` in place of `container`. */
export type LogOptions = NonNullable<paths[ReturnType<typeof logPath>]['get']['parameters']['query']> & PipelineRequestOptions;

/** Lines to append to one step's log. */
export interface LogAppend {
  /** A step of the Pipeline (`spec.steps[].name`); the server refuses others with 400. */
  readonly step: string;
  /** The lines, each without a line break. */
  readonly lines: readonly string[];
}

/** Appends lines to a Pipeline's log; throws an ApiError (404 NotFound when the Pipeline does not exist). */
export async function appendLog(api: Client<paths>, pipeline: PipelineName, append: LogAppend, options: PipelineRequestOptions = {}): Promise<void> {
  const body = { step: append.step, lines: [...append.lines] };
  await unwrap(api.POST(logPath(options), { params: { path: pipeline }, body, signal: options.signal }));
}

/**
 * The lines of a Pipeline's log, as they arrive. With `follow: true` the iteration
 * goes on until the Pipeline is deleted or `signal` aborts.
 *
 * @example
 * for await (const line of readLog(api, { namespace: 'default', name: 'ingest' }, { follow: true, tailLines: 10, signal })) console.log(line);
 */
export async function* readLog(api: Client<paths>, pipeline: PipelineName, options: LogOptions = {}): AsyncGenerator<string> {
  const { signal, version, ...query } = options;
  const { data, error, response } = await api.GET(logPath({ version }), { params: { path: pipeline, query }, parseAs: 'stream', signal });
  if (!response.ok || !data) throw apiError(response.status, error);
  try {
    yield* lines(data, signal);
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}
