/**
 * Continue tokens of paginated lists, in kube-apiserver's format: base64url of
 * `{"v":"meta.k8s.io/v1","rv":<resourceVersion>,"start":"<key>\u0000"}`. `start`
 * sorts right after the last key returned; `rv` is the snapshot the pages are
 * read at, or -1 for a token that continues from the newest state. Cairn adds
 * `"remaining"`, the page's `remainingItemCount`, when it gave one: the next page of
 * the same snapshot has that many items after its start, and so knows its own count
 * without reading the rest (kube's decoder ignores fields it does not know).
 */
import { badRequest } from '../errors.js';

/** Where the next page starts, and the resourceVersion it is read at. */
export interface ContinuePosition {
  /** The snapshot's resourceVersion; undefined continues from the newest state. */
  readonly resourceVersion?: string;
  /** The key of the last item already returned. */
  readonly namespace: string;
  readonly name: string;
  /** How many items of the snapshot follow the key, when the page that handed out the token counted them. */
  readonly remainingItemCount?: number;
}

const tokenVersion = 'meta.k8s.io/v1';

/** Encodes a continue token. */
export function encodeContinue(position: ContinuePosition): string {
  const rv = position.resourceVersion === undefined ? -1 : Number(position.resourceVersion);
  const remaining = position.remainingItemCount === undefined ? '' : `,"remaining":${position.remainingItemCount}`;
  const json = `{"v":"${tokenVersion}","rv":${rv},"start":${JSON.stringify(`${position.namespace}/${position.name}\u0000`)}${remaining}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

const invalid = (why: string) => badRequest(`continue key is not valid: ${why}`);

/** Decodes a continue token; 400 when it is not one of ours. */
export function decodeContinue(token: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('illegal base64 data or JSON');
  }
  const { v, rv, start, remaining } = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown; remaining?: unknown };
  if (v !== tokenVersion) throw invalid(`server does not recognize this encoded key`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < -1 || rv === 0)
    throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || !start.endsWith('\u0000')) throw invalid('encoded start key is not valid');
  if (remaining !== undefined && (typeof remaining !== 'number' || !Number.isSafeInteger(remaining) || remaining < 0))
    throw invalid('encoded remaining item count is not valid');
  const key = start.slice(0, -1);
  const slash = key.indexOf('/');
  if (slash < 0) throw invalid('encoded start key is not valid');
  return {
    resourceVersion: rv === -1 ? undefined : String(rv),
    namespace: key.slice(0, slash),
    name: key.slice(slash + 1),
    ...(remaining !== undefined ? { remainingItemCount: remaining } : {}),
  };
}
