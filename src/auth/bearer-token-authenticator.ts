/**
 * Bearer tokens, as k8s.io/apiserver's `request/bearertoken` over `token/union`: the
 * token of `Authorization: Bearer <token>` goes to each token authenticator in turn
 * (the token file, then TokenReview), and the first that knows it names the user. A
 * token nobody knows is refused with 401, whatever the path: the request does not fall
 * back to anonymous.
 */
import { unauthorized } from '../machinery/errors.js';
import type { AuthenticationRequest, Authenticator, UserInfo } from './user-info.js';

/** Finds the user a bearer token stands for; undefined when this authenticator does not know the token. */
export interface TokenAuthenticator {
  authenticateToken(token: string): UserInfo | undefined | Promise<UserInfo | undefined>;
}

/** kube's bearer-token authenticator: `Authorization: Bearer <token>`, the scheme without case. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const parts = (authorization ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] === '' ? undefined : parts[1];
}

/** Authenticates requests that carry a bearer token one of the token authenticators knows. */
export class BearerTokenAuthenticator implements Authenticator {
  readonly #tokenAuthenticators: readonly TokenAuthenticator[];

  constructor(tokenAuthenticators: readonly TokenAuthenticator[]) {
    this.#tokenAuthenticators = Object.freeze([...tokenAuthenticators]);
  }

  async authenticate(request: AuthenticationRequest): Promise<UserInfo | undefined> {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return undefined;
    for (const tokenAuthenticator of this.#tokenAuthenticators) {
      const user = await tokenAuthenticator.authenticateToken(token);
      if (user) return user;
    }
    // kube's "invalid bearer token".
    throw unauthorized();
  }
}
