/**
 * The route of resource requests, and the test that takes a request to it without the
 * router: a GET or a create is most of what the server answers, and the router would
 * match each against every route, then build and compose a chain for it, to reach the
 * one handler whose params nobody reads.
 */

/** The router's pattern of every resource request. */
export const resourceRoute = '/apis/:group/:version/*rest';

/**
 * Whether the router would send `path` to {@link resourceRoute}: `/apis/`, a group
 * segment and a version segment, each not empty, then anything not empty. The router
 * also takes other letter cases of `apis`, which no resource request has: this says no
 * to those, and they go through the router as before.
 */
export function isResourceRoute(path: string): boolean {
  if (!path.startsWith('/apis/')) return false;
  const afterGroup = path.indexOf('/', 6);
  if (afterGroup <= 6) return false;
  const afterVersion = path.indexOf('/', afterGroup + 1);
  return afterVersion > afterGroup + 1 && path.length > afterVersion + 1;
}
