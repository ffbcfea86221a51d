/**
 * A list of one of the typed client's collections in pages (`GET …?limit=N`, then
 * `&continue=…`), read by kubeclient's pager: one consistent snapshot a page at a time,
 * a ResourceExpiredError (410) when a token outlived the server's history.
 */
import type { Client } from 'openapi-fetch';
import { pager } from '../machinery/kubeclient/pager.js';
import type { paths, UntypedCall } from './paths.js';
import { unwrap } from './unwrap.js';

/** The paths of collections that can be listed in pages (their GET takes `limit` and `continue`). */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { limit?: number; continue?: string } } } } ? P : never;
}[keyof paths];

/** One page of a list of `P`: a list object whose `metadata.continue` names the next page. */
export type ListPage<P extends ListPath> = paths[P]['get']['responses'][200]['content']['application/json'];

/** What to list, and in pages of what size. */
export interface ListPagesOptions<P extends ListPath> {
  /** The path parameters of `P`, e.g. `{ namespace: 'default' }`. */
  readonly path?: paths[P]['get']['parameters']['path'];
  /** The most objects a page holds (kube's `limit`); the server's default page size unset. */
  readonly limit?: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Aborts the request in flight or the next one: the iteration throws the signal's reason, never passing a partial list off as whole. */
  readonly signal?: AbortSignal;
}

/**
 * The pages of the list of `path`, in order, the last one without a `continue` token.
 *
 * @example
 * for await (const page of listPages(api, '/apis/cairn.dev/v1/pipelines', { limit: 100 })) {
 *   for (const pipeline of page.items) console.log(pipeline.metadata?.name);
 * }
 */
export async function* listPages<P extends ListPath>(api: Client<paths>, path: P, options: ListPagesOptions<P> = {}): AsyncGenerator<ListPage<P>> {
  const { limit, labelSelector, fieldSelector, signal } = options;
  const listPage = async (token: string | undefined): Promise<ListPage<P>> => {
    const query = { limit, continue: token, labelSelector, fieldSelector };
    return (await unwrap((api.GET as unknown as UntypedCall)(path, { params: { path: options.path, query }, signal }))) as ListPage<P>;
  };
  yield* pager(listPage, (page) => page.metadata?.continue || undefined, signal);
}
