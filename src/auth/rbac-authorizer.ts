/**
 * RBAC evaluation, as k8s.io/kubernetes' `plugin/pkg/auth/authorizer/rbac` and
 * `pkg/apis/rbac/v1/evaluation_helpers.go`: a request is allowed when a binding that
 * applies to its user grants a rule that matches it: every ClusterRoleBinding, and the
 * RoleBindings of the request's namespace (to a Role of that namespace, or to a
 * ClusterRole, granted in that namespace only). Nothing is ever denied: what no rule
 * allows gets no opinion.
 */
import { allow, noOpinion, type Authorization, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import type { Binding, PolicyRule, RbacPolicy, Role, Subject } from './rbac-policy.js';
import type { UserInfo } from './user-info.js';

const verbMatches = (rule: PolicyRule, verb: string) => rule.verbs.some((v) => v === '*' || v === verb);

const apiGroupMatches = (rule: PolicyRule, group: string) => rule.apiGroups.some((g) => g === '*' || g === group);

/** `pipelines/status` is matched by itself, by `*`, and by the rule naming every resource's `status` (star, slash, status). */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return rule.resources.some(
    (r) => r === '*' || r === combined || (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)),
  );
}

const resourceNameMatches = (rule: PolicyRule, name: string) => rule.resourceNames.length === 0 || rule.resourceNames.includes(name);

/** An exact path, `*`, or a prefix ending in `*`. */
function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return rule.nonResourceURLs.some((url) => url === '*' || url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1))));
}

/** kube's `RuleAllows`. */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceUrlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

/** kube's `appliesToUser`: a ServiceAccount subject without a namespace takes its RoleBinding's. */
function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
  }
}

/** How kube's RBAC authorizer names what allowed a request (its reason, seen in audit annotations). */
function describeGrant(binding: Binding, subject: Subject): string {
  const name = binding.namespace ? `${binding.namespace}/${binding.name}` : binding.name;
  const who = subject.kind === 'ServiceAccount' ? `${subject.namespace || binding.namespace}/${subject.name}` : subject.name;
  return `RBAC: allowed by ${binding.kind} ${JSON.stringify(name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${subject.kind} ${JSON.stringify(who)}`;
}

/** Authorizes with the roles and bindings of a policy. */
export class RbacAuthorizer implements Authorizer {
  readonly #clusterRoleBindings: readonly Binding[];
  readonly #roleBindings: ReadonlyMap<string, readonly Binding[]>;
  readonly #rules: ReadonlyMap<string, readonly PolicyRule[]>;

  /** `policies`: the built-in one and the file's, merged (their names must not collide). */
  constructor(policies: readonly RbacPolicy[]) {
    const roles = policies.flatMap((p) => p.roles);
    const bindings = policies.flatMap((p) => p.bindings);
    this.#rules = new Map(roles.map((role) => [RbacAuthorizer.#key(role), role.rules]));
    this.#clusterRoleBindings = bindings.filter((b) => b.kind === 'ClusterRoleBinding');
    const byNamespace = new Map<string, Binding[]>();
    for (const binding of bindings.filter((b) => b.kind === 'RoleBinding'))
      byNamespace.set(binding.namespace, [...(byNamespace.get(binding.namespace) ?? []), binding]);
    this.#roleBindings = byNamespace;
  }

  static #key(role: Pick<Role, 'kind' | 'name' | 'namespace'>): string {
    return `${role.kind}/${role.namespace}/${role.name}`;
  }

  authorize(a: AuthorizationAttributes): Authorization {
    const bindings = [...this.#clusterRoleBindings, ...(a.namespace ? (this.#roleBindings.get(a.namespace) ?? []) : [])];
    for (const binding of bindings) {
      const subject = binding.subjects.find((s) => appliesTo(a.user, s, binding.namespace));
      if (!subject) continue;
      const { kind, name } = binding.roleRef;
      const rules = this.#rules.get(RbacAuthorizer.#key({ kind, name, namespace: kind === 'Role' ? binding.namespace : '' })) ?? [];
      if (rules.some((rule) => ruleAllows(a, rule))) return allow(describeGrant(binding, subject));
    }
    return noOpinion();
  }
}
