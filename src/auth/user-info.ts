/**
 * The identity a request was authenticated as, as kube's `user.Info` holds it, and
 * the seam authenticators plug into.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** An authenticated user, or the anonymous one. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The group of every authenticated user (kube's `user.AllAuthenticated`). */
export const allAuthenticated = 'system:authenticated';

/** The group of requests no authenticator recognised (kube's `user.AllUnauthenticated`). */
export const allUnauthenticated = 'system:unauthenticated';

/** Who a request is when no authenticator recognises it, as kube's anonymous authenticator names it. */
export const anonymousUser: UserInfo = Object.freeze({ name: 'system:anonymous', groups: Object.freeze([allUnauthenticated]) });

/** Whether `user` was authenticated by some authenticator, rather than being anonymous. */
export function isAuthenticated(user: UserInfo): boolean {
  return user.groups.includes(allAuthenticated);
}

/**
 * kube's `AuthenticatedGroupAdder`: an authenticated user is in `system:authenticated`,
 * unless it is `system:anonymous` or already says which of the two it is.
 */
export function withAuthenticatedGroup(name: string, groups: readonly string[]): string[] {
  if (name === anonymousUser.name || groups.includes(allAuthenticated) || groups.includes(allUnauthenticated)) return [...groups];
  return [...groups, allAuthenticated];
}

/** Finds who made a request; undefined when this method cannot tell. */
export interface Authenticator {
  authenticate(request: AuthenticationRequest): UserInfo | undefined | Promise<UserInfo | undefined>;
  /**
   * Removes the headers this method reads once authentication is over, whoever the
   * request turned out to be, so nothing after it trusts them (kube's authentication
   * filter deletes the front-proxy headers it was configured with).
   */
  clearCredentials?(request: RequestHeaders): void;
}

/**
 * The connection a request arrived on: a TLSSocket over HTTPS (under HTTP/2, Node's
 * proxy of the session's TLSSocket, which answers the same calls), a plain Socket otherwise.
 */
export type ConnectionSocket = Socket | TLSSocket;

/**
 * A request's headers as Node keeps them: `headers` joins repeated lines with ", ",
 * `rawHeaders` (name, value, name, value, …) keeps each line, as Go's `http.Header` does.
 */
export interface RequestHeaders {
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
}

/** What authenticators read from a request. */
export interface AuthenticationRequest {
  readonly headers: IncomingHttpHeaders;
  /** Every header line as received; read it where a repeated header means several values. */
  readonly rawHeaders: readonly string[];
  readonly socket: ConnectionSocket;
}
