/**
 * A list in pages, as client-go's pager reads one: a first page, then again with the
 * `continue` token of each page until a page has none. Every page is served from the
 * first page's snapshot (its resourceVersion), so together they are one consistent
 * list, held a page at a time; a token that outlived the server's history fails the
 * next request with a ResourceExpiredError (410), and the caller lists again.
 */

/**
 * The pages `listPage` reads, in order, the last one the first whose `continueOf` is
 * undefined. An aborted `signal` throws its reason before the next page, never passing
 * a partial list off as whole.
 *
 * @example
 * for await (const page of pager((token) => get(path, { limit: 500, continue: token }), (page) => page.metadata?.continue || undefined)) use(page.items);
 */
export async function* pager<P>(
  listPage: (continueToken: string | undefined) => Promise<P>,
  continueOf: (page: P) => string | undefined,
  signal?: AbortSignal,
): AsyncGenerator<P> {
  let token: string | undefined;
  do {
    signal?.throwIfAborted();
    const page = await listPage(token);
    yield page;
    token = continueOf(page);
  } while (token !== undefined);
}
