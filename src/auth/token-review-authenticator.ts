/**
 * Bearer tokens checked by the main API server, as k8s.io/apiserver's delegating
 * authenticator does (`plugin/pkg/authenticator/token/webhook` behind
 * `pkg/authentication/token/cache`): the token goes to
 * `authentication.k8s.io/v1 TokenReview`, and the answer, authenticated or not, is
 * kept for `--authentication-token-webhook-cache-ttl`, keyed by the token's hash. A
 * review that fails (timeout, 5xx) is not cached. It is one of the token authenticators
 * behind the bearer-token authenticator, which refuses a token nobody vouches for.
 */
import { createHash } from 'node:crypto';
import { unauthorized } from '../machinery/errors.js';
import type { RestClient } from '../machinery/kubeclient/rest-client.js';
import { answered, failed, httpClientAttributes, inSpan, SpanKind, traceHeaders, tracing } from '../machinery/tracing.js';
import type { TokenAuthenticator } from './bearer-token-authenticator.js';
import { TtlCache } from './ttl-cache.js';
import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** Where TokenReviews are posted. */
const tokenReviewsPath = '/apis/authentication.k8s.io/v1/tokenreviews';

/** How the authenticator asks and remembers. */
export interface TokenReviewAuthenticatorOptions {
  /** A client of the main API server (`--authentication-kubeconfig`). */
  readonly client: Pick<RestClient, 'request'> & { readonly server?: string };
  /** How long an answer is remembered (kube's default 10 s). */
  readonly cacheTtlMs: number;
  /** How long a review may take (kube's `TokenAccessReviewTimeout`, 10 s). */
  readonly timeoutMs?: number;
  /** The audiences the token must be meant for; any the server accepts when empty. */
  readonly audiences?: readonly string[];
}

/** What a TokenReview says about a token: the user, or why not. */
type Review = { readonly user: UserInfo } | { readonly error: string };

interface TokenReviewStatus {
  readonly authenticated?: boolean;
  readonly error?: string;
  readonly user?: { readonly username?: string; readonly uid?: string; readonly groups?: string[]; readonly extra?: Record<string, string[]> };
}

/** Authenticates bearer tokens through TokenReview. */
export class TokenReviewAuthenticator implements TokenAuthenticator {
  readonly #options: TokenReviewAuthenticatorOptions;
  readonly #cache = new TtlCache<Review>(4096);

  constructor(options: TokenReviewAuthenticatorOptions) {
    this.#options = options;
  }

  /** The reviewed user; undefined when the server does not vouch for the token; 401 when it cannot be asked. */
  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const key = createHash('sha256').update(token).digest('hex');
    let review = this.#cache.get(key);
    if (review === undefined) {
      review = await this.#review(token);
      this.#cache.set(key, review, this.#options.cacheTtlMs);
    }
    if ('error' in review) return undefined;
    return review.user;
  }

  /** Posts one TokenReview; throws 401 when the server cannot be asked (not cached). */
  async #review(token: string): Promise<Review> {
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(this.#options.audiences?.length ? { audiences: this.#options.audiences } : {}) },
    };
    const answer = await inSpan(
      `POST ${tokenReviewsPath}`,
      { kind: SpanKind.CLIENT, attributes: tracing() ? httpClientAttributes('POST', this.#options.client.server, tokenReviewsPath) : undefined },
      async (span) => {
        const result = await this.#options.client
          .request('POST', tokenReviewsPath, body, { timeoutMs: this.#options.timeoutMs ?? 10_000, headers: traceHeaders() })
          .catch((error: unknown) => void (span && failed(span, error)));
        if (result) answered(span, result.status);
        return result;
      },
    );
    if (answer === undefined || answer.status < 200 || answer.status > 299) throw unauthorized();
    const status = ((answer.body ?? {}) as { status?: TokenReviewStatus }).status ?? {};
    const username = status.user?.username;
    if (!status.authenticated || !username) return { error: status.error || 'invalid bearer token' };
    const { uid, groups = [], extra } = status.user ?? {};
    return {
      user: Object.freeze({
        name: username,
        ...(uid ? { uid } : {}),
        groups: withAuthenticatedGroup(username, groups),
        ...(extra && Object.keys(extra).length > 0 ? { extra } : {}),
      }),
    };
  }
}
