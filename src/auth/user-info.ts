/**
 * The identity a request was authenticated as, as kube's `user.Info` holds it.
 */

/** An authenticated user. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Finds who made a request; undefined when this method cannot tell. */
export interface Authenticator {
  authenticate(request: AuthenticationRequest): UserInfo | undefined | Promise<UserInfo | undefined>;
}

/** What authenticators read from a request. */
export interface AuthenticationRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The TLS socket the request arrived on, if any. */
  readonly socket: unknown;
}
