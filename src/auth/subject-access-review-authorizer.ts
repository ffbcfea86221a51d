/**
 * Authorization delegated to the main API server, as k8s.io/apiserver's delegating
 * authorizer does (`plugin/pkg/authorizer/webhook`): each request's attributes become an
 * `authorization.k8s.io/v1 SubjectAccessReview`, and its verdict is kept for
 * `--authorization-webhook-cache-authorized-ttl` when allowed and
 * `--authorization-webhook-cache-unauthorized-ttl` when not, keyed by the review's spec.
 * A review that fails is an error (the request answers 500), never a denial.
 */
import { internal } from '../machinery/errors.js';
import { allow, deny, noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import type { RestClient } from '../machinery/kubeclient/rest-client.js';
import { answered, httpClientAttributes, inSpan, SpanKind, traceHeaders, tracing } from '../machinery/tracing.js';
import { TtlCache } from './ttl-cache.js';

/** Where SubjectAccessReviews are posted. */
const subjectAccessReviewsPath = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

/** How the authorizer asks and remembers. */
export interface SubjectAccessReviewAuthorizerOptions {
  /** A client of the main API server (`--authorization-kubeconfig`). */
  readonly client: Pick<RestClient, 'request'> & { readonly server?: string };
  /** How long an allowed verdict is remembered (kube's default 10 s). */
  readonly authorizedTtlMs: number;
  /** How long any other verdict is remembered (kube's default 10 s). */
  readonly unauthorizedTtlMs: number;
  /** How long a review may take (kube's delegating default, 10 s). */
  readonly timeoutMs?: number;
}

/** The spec of a SubjectAccessReview, as kube's webhook authorizer fills it from the attributes. */
export function subjectAccessReviewSpec(a: AuthorizationAttributes): Record<string, unknown> {
  return {
    ...(a.isResourceRequest
      ? {
          resourceAttributes: {
            namespace: a.namespace,
            verb: a.verb,
            group: a.apiGroup,
            version: a.apiVersion,
            resource: a.resource,
            subresource: a.subresource,
            name: a.name,
          },
        }
      : { nonResourceAttributes: { path: a.path, verb: a.verb } }),
    user: a.user.name,
    groups: a.user.groups,
    ...(a.user.extra !== undefined ? { extra: a.user.extra } : {}),
    ...(a.user.uid ? { uid: a.user.uid } : {}),
  };
}

interface SubjectAccessReviewStatus {
  readonly allowed?: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}

/** Asks the main API server whether a request may proceed. */
export class SubjectAccessReviewAuthorizer implements Authorizer {
  readonly #options: SubjectAccessReviewAuthorizerOptions;
  readonly #cache = new TtlCache<Authorization>(1024);

  constructor(options: SubjectAccessReviewAuthorizerOptions) {
    this.#options = options;
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Authorization> {
    const spec = subjectAccessReviewSpec(attributes);
    const key = JSON.stringify(spec);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec };
    const answer = await inSpan(
      `POST ${subjectAccessReviewsPath}`,
      { kind: SpanKind.CLIENT, attributes: tracing() ? httpClientAttributes('POST', this.#options.client.server, subjectAccessReviewsPath) : undefined },
      async (span) => {
        const result = await this.#options.client
          .request('POST', subjectAccessReviewsPath, body, { timeoutMs: this.#options.timeoutMs ?? 10_000, headers: traceHeaders() })
          .catch((error: Error) => {
            throw internal(`SubjectAccessReview failed: ${error.message}`);
          });
        answered(span, result.status);
        return result;
      },
    );
    if (answer.status < 200 || answer.status > 299) throw internal(`SubjectAccessReview failed: HTTP ${answer.status}`);
    const status = ((answer.body ?? {}) as { status?: SubjectAccessReviewStatus }).status ?? {};
    const reason = status.reason ?? '';
    const verdict = status.allowed ? allow(reason) : status.denied ? deny(reason) : noOpinion(reason);
    this.#cache.set(key, verdict, status.allowed ? this.#options.authorizedTtlMs : this.#options.unauthorizedTtlMs);
    return verdict;
  }
}
