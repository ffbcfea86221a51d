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

/** kube's 400 for a token it cannot read: `invalid continue token: continue key is not valid…` (storage.DecodeContinue's errors). */
const invalid = (why: string) => badRequest(`invalid continue token: continue key is not valid${why}`);

/** A byte of base64url's alphabet. */
const inAlphabet = (byte: number): boolean =>
  (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x5f;

/**
 * Where Go's `base64.RawURLEncoding.DecodeString` fails on `token`, as its error says it
 * (`illegal base64 data at input byte 4`): a byte outside the alphabet, or a last group
 * of one character; line ends are skipped. Undefined when it decodes.
 */
function base64Error(token: string): string | undefined {
  const bytes = Buffer.from(token, 'utf8');
  let inGroup = 0;
  for (const [index, byte] of bytes.entries()) {
    if (byte === 0x0a || byte === 0x0d) continue;
    if (!inAlphabet(byte)) return `illegal base64 data at input byte ${index}`;
    inGroup = (inGroup + 1) % 4;
  }
  return inGroup === 1 ? `illegal base64 data at input byte ${bytes.length - 1}` : undefined;
}

/** Decodes a continue token; 400 when it is not one of ours, worded as kube's storage words it. */
export function decodeContinue(token: string): ContinuePosition {
  const base64 = base64Error(token);
  if (base64 !== undefined) throw invalid(`: ${base64}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token.replace(/[\r\n]/g, ''), 'base64url').toString('utf8'));
  } catch {
    // kube quotes Go's JSON decoder here, which Cairn's parser does not word alike.
    throw invalid(': the decoded token is not JSON');
  }
  const { v, rv, start, remaining } = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown; remaining?: unknown };
  if (v !== tokenVersion) throw invalid(`: server does not recognize this encoded version ${typeof v === 'string' ? v : ''}`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < -1 || rv === 0)
    throw invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '') throw invalid(': encoded start key empty (version meta.k8s.io/v1)');
  // Cairn's own field (kube's tokens are opaque to clients): the count the first page carried.
  if (remaining !== undefined && (typeof remaining !== 'number' || !Number.isSafeInteger(remaining) || remaining < 0))
    throw invalid(': encoded remaining item count is not valid');
  // Cairn's keys are `namespace/name` and NUL, as it writes them; kube names any other key as it was sent.
  const key = start.slice(0, -1);
  const slash = key.indexOf('/');
  if (!start.endsWith('\u0000') || slash < 0) throw invalid(`: ${start}`);
  return {
    resourceVersion: rv === -1 ? undefined : String(rv),
    namespace: key.slice(0, slash),
    name: key.slice(slash + 1),
    ...(remaining !== undefined ? { remainingItemCount: remaining } : {}),
  };
}
