/**
 * Thrown when a `labelSelector` or `fieldSelector` query parameter cannot be parsed.
 *
 * The message is worded like the Kubernetes apimachinery parsers' errors so that clients
 * see what they would see from kube-apiserver; the registry turns it into a 400 Status.
 *
 * @example
 * try { parseLabelSelector('a b') } catch (e) {
 *   if (e instanceof SelectorParseError) throw badRequest(e.message)
 * }
 */
export class SelectorParseError extends Error {
  /** The selector text as the client sent it. */
  readonly selector: string;

  constructor(message: string, selector: string) {
    super(message);
    this.name = 'SelectorParseError';
    this.selector = selector;
  }
}
