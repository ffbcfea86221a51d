/**
 * The `history` subresource: an object's retained revisions, newest first, each with the
 * write that made it (operation, field manager, user) and the object as it left it, in
 * the version of the path read. One page (`getHistory`), or every revision a page at a
 * time (`revisions`), as `listPages` reads a collection.
 */
import type { Client } from 'openapi-fetch';
import { pager } from '../machinery/kubeclient/pager.js';
import type { Revision, RevisionList } from './kinds.js';
import type { ObjectOf, PathParameters, paths, UntypedCall } from './paths.js';
import { unwrap } from './unwrap.js';

/** The path of an object with a history subresource, e.g. `/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}`. */
export type HistoryPath = { [P in keyof paths]: `${P}/history` extends keyof paths ? P : never }[keyof paths];

/** One revision of an object of `P`: the write that made it, and the object (of `P`'s kind and version) as it left it. */
export type RevisionOf<P extends HistoryPath> = Omit<Revision, 'object'> & { readonly object: ObjectOf<P> };

/** One page of `P`'s history, newest first; `metadata.continue` names the next. */
export type RevisionListOf<P extends HistoryPath> = Omit<RevisionList, 'items'> & { readonly items: readonly RevisionOf<P>[] };

/** Which object's history, which page of it, and when to give up. */
export interface HistoryRequest<P extends HistoryPath> {
  /** The path parameters of `P`, e.g. `{ namespace: 'default', name: 'ingest' }`. */
  readonly path: PathParameters<P>;
  /** The most revisions a page holds (the server bounds it too). */
  readonly limit?: number;
  /** The `metadata.continue` of the page before. */
  readonly continue?: string;
  /** Only the revisions of the object with this uid: one incarnation of a name deleted and created again. */
  readonly uid?: string;
  readonly signal?: AbortSignal;
}

/** One page of the history of the object of `path`, newest first; 404 when none is retained. */
export async function getHistory<P extends HistoryPath>(api: Client<paths>, path: P, request: HistoryRequest<P>): Promise<RevisionListOf<P>> {
  const query = { limit: request.limit, continue: request.continue, uid: request.uid };
  const init = { params: { path: request.path, query }, signal: request.signal };
  return (await unwrap((api.GET as unknown as UntypedCall)(`${path}/history`, init))) as RevisionListOf<P>;
}

/**
 * Every retained revision of the object of `path`, newest first, read a page of `limit`
 * at a time; a ResourceExpiredError (410) when compaction removed what a page continues to.
 *
 * @example
 * for await (const revision of revisions(api, '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}', { path: { namespace, name } })) {
 *   console.log(revision.resourceVersion, revision.operation, revision.user, revision.object.spec?.replicas);
 * }
 */
export async function* revisions<P extends HistoryPath>(
  api: Client<paths>,
  path: P,
  request: Omit<HistoryRequest<P>, 'continue'>,
): AsyncGenerator<RevisionOf<P>> {
  const page = (token: string | undefined) => getHistory(api, path, { ...request, ...(token ? { continue: token } : {}) });
  for await (const list of pager(page, (list) => list.metadata?.continue || undefined, request.signal)) yield* list.items;
}
