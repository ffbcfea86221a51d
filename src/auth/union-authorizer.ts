/**
 * Authorizers asked in turn, as kube's `union.New`: the first `Allow` or `Deny` decides;
 * when all have no opinion, so has the union, with their reasons joined.
 */
import { noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';

/** Several authorizers behaving as one. */
export class UnionAuthorizer implements Authorizer {
  readonly #authorizers: readonly Authorizer[];

  constructor(authorizers: readonly Authorizer[]) {
    this.#authorizers = Object.freeze([...authorizers]);
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Authorization> {
    const reasons: string[] = [];
    for (const authorizer of this.#authorizers) {
      const result = await authorizer.authorize(attributes);
      if (result.decision !== 'NoOpinion') return result;
      if (result.reason) reasons.push(result.reason);
    }
    return noOpinion(reasons.join('\n'));
  }
}
