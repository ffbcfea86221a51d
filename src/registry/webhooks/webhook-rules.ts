/**
 * Which webhooks a request calls, as kube's `rules.Matcher` and `matchPolicy` decide:
 * operations, apiGroups, apiVersions, resources and scope. A resource is `pipelines`,
 * `pipelines/scale`, or `*` for every resource; a subresource part `*` names every
 * subresource and, as kube matches it, the resource itself. With matchPolicy Equivalent, a
 * rule naming another version in which the endpoint table serves the same resource and
 * subresource matches too, and the webhook is sent the object in that version.
 */
import type { ApiEndpoint } from '../../apis/api-endpoint.js';
import type { Webhook, WebhookRule } from './webhook-configuration.js';

/** What a request is, for rules. */
export interface RuleTarget {
  readonly operation: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespaced: boolean;
}

const matchesAny = (values: readonly string[], value: string): boolean => values.includes('*') || values.includes(value);

function matchesResource(resources: readonly string[], resource: string, subresource: string): boolean {
  return resources.some((entry) => {
    const slash = entry.indexOf('/');
    const [res, sub] = slash === -1 ? [entry, ''] : [entry.slice(0, slash), entry.slice(slash + 1)];
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

/** kube's `Matcher.Matches` of one rule. */
export function ruleMatches(rule: WebhookRule, target: RuleTarget): boolean {
  const scope = rule.scope === '*' || (rule.scope === 'Namespaced') === target.namespaced;
  return (
    scope &&
    matchesAny(rule.operations, target.operation) &&
    matchesAny(rule.apiGroups, target.group) &&
    matchesAny(rule.apiVersions, target.version) &&
    matchesResource(rule.resources, target.resource, target.subresource ?? '')
  );
}

/**
 * The endpoint `webhook` is sent the object of: the request's when a rule matches it;
 * with Equivalent, the first of the request's `equivalents` (the endpoint table's same
 * resource and subresource in each served version) that a rule matches; undefined when
 * the webhook does not match the request.
 */
export function matchedEndpoint<E extends ApiEndpoint>(webhook: Webhook, target: RuleTarget, equivalents: readonly E[]): E | undefined {
  const matches = (endpoint: E) => webhook.rules.some((rule) => ruleMatches(rule, { ...target, version: endpoint.version }));
  const requested = equivalents.find((endpoint) => endpoint.version === target.version);
  if (requested && matches(requested)) return requested;
  if (webhook.matchPolicy === 'Exact') return undefined;
  return equivalents.find((endpoint) => endpoint !== requested && matches(endpoint));
}
