/**
 * Front-proxy authentication, as kube's requestheader authenticator
 * (`k8s.io/apiserver/pkg/authentication/request/headerrequest`): a request whose TLS
 * client certificate chains to the request-header CA, with a CN among the allowed
 * names (any, when none are listed), is the user its `X-Remote-*` headers name. This
 * is how kube-apiserver's aggregator tells Cairn who the user is.
 *
 * The headers are read as Go's `http.Header` holds them: names compared without case,
 * every header line a value of its own (Node's `headers` joins repeated lines with
 * ", ", so they are read from `rawHeaders`), and a value is never split on commas.
 */
import type { DetailedPeerCertificate } from 'node:tls';
import { CertificateVerifier } from './certificate-verifier.js';
import { isTlsSocket, peerCertificateChain } from './peer-certificates.js';
import { withAuthenticatedGroup, type AuthenticationRequest, type Authenticator, type RequestHeaders, type UserInfo } from './user-info.js';

/** Which headers carry the user, as kube's `--requestheader-*-headers` flags name them. */
export interface RequestHeaderNames {
  /** The first of these headers with a non-empty value names the user; none, and the request is not a front-proxy one. */
  readonly usernameHeaders: readonly string[];
  /** The first of these with a non-empty value is the user's uid. */
  readonly uidHeaders: readonly string[];
  /** Every non-empty value of every one of these is a group. */
  readonly groupHeaders: readonly string[];
  /** A header starting with one of these is an extra: the rest of its name, lower-cased and %-decoded, is the key. */
  readonly extraHeaderPrefixes: readonly string[];
}

/**
 * The headers kube-apiserver's aggregator sends, and those kube's authentication filter
 * always deletes after authenticating, configured or not.
 */
export const standardRequestHeaderNames: RequestHeaderNames = Object.freeze({
  usernameHeaders: Object.freeze(['X-Remote-User']),
  uidHeaders: Object.freeze(['X-Remote-Uid']),
  groupHeaders: Object.freeze(['X-Remote-Group']),
  extraHeaderPrefixes: Object.freeze(['X-Remote-Extra-']),
});

/** What the front-proxy authenticator trusts, and where it reads the user. */
export interface RequestHeaderAuthenticatorOptions extends RequestHeaderNames {
  /** The CA bundle(s) the front proxy's client certificate must chain to (kube's `--requestheader-client-ca-file`). */
  readonly clientCaPems: readonly string[];
  /** The CNs the front proxy's certificate may have (`--requestheader-allowed-names`); empty allows any. */
  readonly allowedNames: readonly string[];
}

/** A request's header lines, grouped by lower-cased name in the order they first came, as Go's `http.Header` map. */
function headerLines(rawHeaders: readonly string[]): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const values = lines.get(name);
    if (values) values.push(rawHeaders[i + 1]);
    else lines.set(name, [rawHeaders[i + 1]]);
  }
  return lines;
}

/** kube's `headerValue`: the first line of each named header, the first non-empty one winning (`Header.Get`). */
function firstValue(lines: Map<string, string[]>, names: readonly string[]): string {
  for (const name of names) {
    const value = lines.get(name.toLowerCase())?.[0];
    if (value) return value;
  }
  return '';
}

/** kube's `allHeaderValues`: every non-empty line of every named header, in order. */
function allValues(lines: Map<string, string[]>, names: readonly string[]): string[] {
  return names.flatMap((name) => (lines.get(name.toLowerCase()) ?? []).filter((value) => value !== ''));
}

const hexPair = /^[0-9a-fA-F]{2}$/;

/**
 * kube's `unescapeExtraKey`, Go's `url.PathUnescape`: `%XX` becomes that byte (`+` stays);
 * a malformed escape keeps the key as it came. Bytes that are not UTF-8 read as U+FFFD,
 * as Go's JSON encoding writes them.
 */
export function unescapeExtraKey(encodedKey: string): string {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = encodedKey.indexOf('%'); i !== -1; i = encodedKey.indexOf('%', start)) {
    const hex = encodedKey.slice(i + 1, i + 3);
    if (!hexPair.test(hex)) return encodedKey;
    parts.push(Buffer.from(encodedKey.slice(start, i), 'utf8'), Buffer.of(parseInt(hex, 16)));
    start = i + 3;
  }
  parts.push(Buffer.from(encodedKey.slice(start), 'utf8'));
  return Buffer.concat(parts).toString('utf8');
}

/** kube's `newExtra`: for each prefix in turn, every line of every header that starts with it, under the decoded key. */
function extraValues(lines: Map<string, string[]>, prefixes: readonly string[]): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  for (const prefix of prefixes) {
    const lowerPrefix = prefix.toLowerCase();
    for (const [name, values] of lines) {
      if (!name.startsWith(lowerPrefix)) continue;
      const key = unescapeExtraKey(name.slice(lowerPrefix.length));
      (extra[key] ??= []).push(...values);
    }
  }
  return extra;
}

/**
 * The user the headers name, as kube's `requestHeaderAuthRequestHandler` reads them;
 * undefined when no username header has a value. Trust it only from a verified front proxy.
 *
 * @example
 * userFromRequestHeaders(['X-Remote-User', 'alice', 'X-Remote-Group', 'devs', 'X-Remote-Group', 'a, b'], standardRequestHeaderNames);
 * // { name: 'alice', groups: ['devs', 'a, b', 'system:authenticated'] }
 */
export function userFromRequestHeaders(rawHeaders: readonly string[], names: RequestHeaderNames): UserInfo | undefined {
  const lines = headerLines(rawHeaders);
  const name = firstValue(lines, names.usernameHeaders);
  if (name === '') return undefined;
  const uid = firstValue(lines, names.uidHeaders);
  const extra = extraValues(lines, names.extraHeaderPrefixes);
  return {
    name,
    ...(uid !== '' ? { uid } : {}),
    groups: withAuthenticatedGroup(name, allValues(lines, names.groupHeaders)),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/**
 * Deletes every header `names` describes from a request, from `headers` and `rawHeaders`
 * alike (kube's `ClearAuthenticationHeaders`), so nothing downstream reads them.
 */
export function clearRequestHeaders(request: RequestHeaders, names: RequestHeaderNames): void {
  const cleared = clearedHeaders(names);
  for (const name of Object.keys(request.headers)) if (cleared(name)) delete request.headers[name];
  const raw = request.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (cleared(raw[i].toLowerCase())) raw.splice(i, 2);
}

/** Each configuration's test of a lower-case header name, made once: every request is cleared with it. */
const clearedByNames = new WeakMap<RequestHeaderNames, (name: string) => boolean>();

function clearedHeaders(names: RequestHeaderNames): (name: string) => boolean {
  let cleared = clearedByNames.get(names);
  if (cleared === undefined) {
    const exact = new Set([...names.usernameHeaders, ...names.uidHeaders, ...names.groupHeaders].map((name) => name.toLowerCase()));
    const prefixes = names.extraHeaderPrefixes.map((prefix) => prefix.toLowerCase());
    cleared = (name: string) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
    clearedByNames.set(names, cleared);
  }
  return cleared;
}

/** kube's `trimHeaders`: names are trimmed, and an empty one is a configuration error. */
function trimmed(names: readonly string[], what: string): readonly string[] {
  return Object.freeze(
    names.map((name) => {
      const trimmedName = name.trim();
      if (trimmedName === '') throw new Error(`empty header name in ${what}`);
      return trimmedName;
    }),
  );
}

/** The certificate's CN as Go reads `Subject.CommonName`: the last CN attribute. */
function commonName(peer: DetailedPeerCertificate): string {
  const cn = peer.subject?.CN;
  return (Array.isArray(cn) ? cn[cn.length - 1] : cn) ?? '';
}

/**
 * Authenticates requests from a front proxy: its certificate verified against this
 * authenticator's own CA pool and allowed names, its headers naming the user. Any other
 * request, headers or not, is left to the next authenticator.
 *
 * @example
 * new RequestHeaderAuthenticator({ clientCaPems: [frontProxyCaPem], allowedNames: ['front-proxy-client'], ...standardRequestHeaderNames });
 */
export class RequestHeaderAuthenticator implements Authenticator {
  readonly #verifier: CertificateVerifier;
  readonly #allowedNames: ReadonlySet<string>;
  readonly #names: RequestHeaderNames;
  // A connection carries one certificate: verify it once, not on every request (HTTP/2 multiplexes many).
  readonly #trustedConnections = new WeakMap<object, boolean>();

  constructor(options: RequestHeaderAuthenticatorOptions) {
    this.#verifier = new CertificateVerifier(options.clientCaPems);
    this.#allowedNames = new Set(options.allowedNames);
    this.#names = Object.freeze({
      usernameHeaders: trimmed(options.usernameHeaders, 'the username headers'),
      uidHeaders: trimmed(options.uidHeaders, 'the uid headers'),
      groupHeaders: trimmed(options.groupHeaders, 'the group headers'),
      extraHeaderPrefixes: trimmed(options.extraHeaderPrefixes, 'the extra header prefixes'),
    });
  }

  authenticate(request: AuthenticationRequest): UserInfo | undefined {
    // Without a username header the request is not a front-proxy one, whoever sent it.
    const user = userFromRequestHeaders(request.rawHeaders, this.#names);
    return user && this.#fromFrontProxy(request) ? user : undefined;
  }

  clearCredentials(request: RequestHeaders): void {
    clearRequestHeaders(request, this.#names);
  }

  /** Whether the connection's certificate chains to the request-header CA and has an allowed CN (kube's x509 `Verifier`). */
  #fromFrontProxy(request: AuthenticationRequest): boolean {
    const socket = request.socket;
    // The handshake's verdict comes first: it checked the chain against every CA the listener trusts.
    if (!isTlsSocket(socket) || !socket.authorized) return false;
    // HTTP/2 requests of one session share one socket proxy, so it keys the cache too.
    let trusted = this.#trustedConnections.get(socket);
    if (trusted === undefined) {
      const chain = peerCertificateChain(socket);
      trusted =
        chain !== undefined &&
        this.#verifier.verify(chain.leaf, chain.intermediates) &&
        (this.#allowedNames.size === 0 || this.#allowedNames.has(commonName(chain.peer)));
      this.#trustedConnections.set(socket, trusted);
    }
    return trusted;
  }
}
