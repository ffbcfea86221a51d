/**
 * The options of a `history` read from its query — `limit`, `continue`, `uid` — and its
 * continue tokens, in the shape of kube's list tokens (base64url JSON naming the token's
 * version), so a client treats them as it treats a list's: opaque, 400 when unreadable.
 */
import { badRequest } from '../machinery/errors.js';

/** What a history read asks for. */
export interface HistoryOptions {
  /** At most this many revisions (bounded by {@link maxHistoryPage}). */
  readonly limit: number;
  /** Only revisions older than this resourceVersion: where the previous page stopped. */
  readonly before?: string;
  /** Only the revisions of the object with this uid. */
  readonly uid?: string;
}

/** The most revisions one page holds, asked for or not: a history read never holds an unbounded list; `continue` goes on. */
export const maxHistoryPage = 500;

const tokenVersion = 'meta.k8s.io/v1';

/** The continue token of a page that stopped after the revision at `before`. */
export function encodeHistoryContinue(before: string): string {
  return Buffer.from(JSON.stringify({ v: tokenVersion, before }), 'utf8').toString('base64url');
}

const invalidToken = (why: string) => badRequest(`invalid continue token: continue key is not valid: ${why}`);

/** The resourceVersion a continue token continues before; 400, worded as kube's, when it is none of ours. */
export function decodeHistoryContinue(token: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken('illegal base64 data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('the decoded token is not JSON');
  }
  const { v, before } = (parsed ?? {}) as { v?: unknown; before?: unknown };
  if (v !== tokenVersion) throw invalidToken(`server does not recognize this encoded version ${typeof v === 'string' ? v : ''}`);
  if (typeof before !== 'string' || !/^[1-9]\d*$/.test(before)) throw invalidToken('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return before;
}

/** Go's strconv error for a malformed `limit`, as kube's parameter decoding answers it. */
function parseLimit(text: string | null): number {
  if (text === null || text === '') return maxHistoryPage;
  if (!/^[+-]?\d+$/.test(text)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  // As a list's: 0 or less is no limit, which a history read bounds all the same.
  return value > 0 ? Math.min(value, maxHistoryPage) : maxHistoryPage;
}

/** The options of a history read; 400 for a malformed limit or continue token. */
export function historyOptions(parameters: URLSearchParams): HistoryOptions {
  const token = parameters.get('continue');
  const uid = parameters.get('uid');
  return {
    limit: parseLimit(parameters.get('limit')),
    ...(token ? { before: decodeHistoryContinue(token) } : {}),
    ...(uid ? { uid } : {}),
  };
}
