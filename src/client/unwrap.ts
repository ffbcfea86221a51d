/**
 * Turns an openapi-fetch result into its data, or throws the ApiError of a failed
 * request: callers write `await unwrap(api.GET(...))` and handle errors by type.
 */
import { apiError } from '../machinery/kubeclient/api-error.js';

/** What every openapi-fetch call resolves to. */
interface FetchResult<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/**
 * The data of a successful request; throws an {@link ApiError} otherwise.
 *
 * @example
 * const pipeline = await unwrap(client.api.GET('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', {
 *   params: { path: { namespace: 'default', name: 'ingest' } },
 * }));
 */
export async function unwrap<T>(result: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await result;
  if (!response.ok) throw apiError(response.status, error);
  return data as T;
}
