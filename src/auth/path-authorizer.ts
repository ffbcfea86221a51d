/**
 * Non-resource paths every caller may reach, authenticated or not, as kube's
 * `--authorization-always-allow-paths` (`authorizerfactory/path`): an entry is an exact
 * path, or a prefix when it ends in `*`.
 */
import { allow, noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';

/** The health endpoints and their per-check paths: load balancers and kubelets probe them without credentials. */
export const defaultAlwaysAllowPaths: readonly string[] = Object.freeze(['/healthz', '/healthz/*', '/livez', '/livez/*', '/readyz', '/readyz/*']);

/** Allows non-resource requests to the listed paths; has no opinion on anything else. */
export class PathAuthorizer implements Authorizer {
  readonly #exact: ReadonlySet<string>;
  readonly #prefixes: readonly string[];

  constructor(paths: readonly string[]) {
    for (const path of paths)
      if (path.indexOf('*') !== -1 && path.indexOf('*') !== path.length - 1) throw new Error(`only a trailing * is supported in always-allow path "${path}"`);
    this.#exact = new Set(paths.filter((p) => !p.endsWith('*')));
    this.#prefixes = Object.freeze(paths.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1)));
  }

  authorize(attributes: AuthorizationAttributes): Authorization {
    if (attributes.isResourceRequest) return noOpinion();
    const path = attributes.path;
    return this.#exact.has(path) || this.#prefixes.some((prefix) => path.startsWith(prefix)) ? allow() : noOpinion();
  }
}
