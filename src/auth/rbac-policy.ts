/**
 * An RBAC policy held in memory: `rbac.authorization.k8s.io/v1` Roles, ClusterRoles,
 * RoleBindings and ClusterRoleBindings, as a standalone Cairn reads them from
 * `--authorization-policy-file` (YAML, several documents or a `List`). What kube-apiserver's
 * validation would refuse is refused here too, naming the object and the field; and,
 * the file being the whole policy, so is a binding to a role it does not define.
 */
import { parseAllDocuments } from 'yaml';

/** `rbac.authorization.k8s.io/v1` PolicyRule, every list present (empty when absent). */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** Who a binding grants its role to. */
export interface Subject {
  readonly kind: 'User' | 'Group' | 'ServiceAccount';
  readonly name: string;
  /** A ServiceAccount's namespace; a RoleBinding's own when empty. */
  readonly namespace: string;
}

/** A RoleBinding (with its namespace) or a ClusterRoleBinding (namespace ''). */
export interface Binding {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly name: string;
  readonly namespace: string;
  readonly roleRef: { readonly kind: 'Role' | 'ClusterRole'; readonly name: string };
  readonly subjects: readonly Subject[];
}

/** A role's name and rules. */
export interface Role {
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
  readonly namespace: string;
  readonly rules: readonly PolicyRule[];
}

/** The objects of a policy. */
export interface RbacPolicy {
  readonly roles: readonly Role[];
  readonly bindings: readonly Binding[];
}

const rbacGroup = 'rbac.authorization.k8s.io';
const rbacVersion = `${rbacGroup}/v1`;
const policyKinds: ReadonlySet<string> = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new Error(`${field}: must be a list of strings`);
  return value as string[];
}

function requiredString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${field}: Required value`);
  return value;
}

/** kube's `ValidatePolicyRule`. */
function policyRule(value: unknown, field: string, namespaced: boolean): PolicyRule {
  if (!isObject(value)) throw new Error(`${field}: must be an object`);
  const rule: PolicyRule = {
    verbs: stringList(value.verbs, `${field}.verbs`),
    apiGroups: stringList(value.apiGroups, `${field}.apiGroups`),
    resources: stringList(value.resources, `${field}.resources`),
    resourceNames: stringList(value.resourceNames, `${field}.resourceNames`),
    nonResourceURLs: stringList(value.nonResourceURLs, `${field}.nonResourceURLs`),
  };
  if (rule.verbs.length === 0) throw new Error(`${field}.verbs: Required value: verbs must contain at least one value`);
  if (rule.nonResourceURLs.length > 0) {
    if (namespaced) throw new Error(`${field}.nonResourceURLs: Invalid value: namespaced rules cannot apply to non-resource URLs`);
    if (rule.apiGroups.length > 0 || rule.resources.length > 0 || rule.resourceNames.length > 0)
      throw new Error(`${field}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
    return rule;
  }
  if (rule.apiGroups.length === 0) throw new Error(`${field}.apiGroups: Required value: resource rules must supply at least one api group`);
  if (rule.resources.length === 0) throw new Error(`${field}.resources: Required value: resource rules must supply at least one resource`);
  return rule;
}

/** kube's `ValidateRoleBindingSubject`, after v1 defaulting (User and Group take the RBAC group). */
function subject(value: unknown, field: string, namespaced: boolean): Subject {
  if (!isObject(value)) throw new Error(`${field}: must be an object`);
  const name = requiredString(value.name, `${field}.name`);
  const apiGroup = value.apiGroup ?? '';
  const namespace = value.namespace ?? '';
  if (typeof namespace !== 'string') throw new Error(`${field}.namespace: must be a string`);
  switch (value.kind) {
    case 'ServiceAccount':
      if (apiGroup !== '') throw new Error(`${field}.apiGroup: Unsupported value: ${JSON.stringify(apiGroup)}: supported values: ""`);
      if (!namespaced && namespace === '') throw new Error(`${field}.namespace: Required value`);
      return { kind: 'ServiceAccount', name, namespace };
    case 'User':
    case 'Group':
      if (apiGroup !== '' && apiGroup !== rbacGroup)
        throw new Error(`${field}.apiGroup: Unsupported value: ${JSON.stringify(apiGroup)}: supported values: "${rbacGroup}"`);
      return { kind: value.kind, name, namespace: '' };
    default:
      throw new Error(`${field}.kind: Unsupported value: ${JSON.stringify(value.kind)}: supported values: "ServiceAccount", "User", "Group"`);
  }
}

/** One Role, ClusterRole, RoleBinding or ClusterRoleBinding; throws naming the field at fault. */
function policyObject(value: Json): Role | Binding {
  const kind = value.kind as Role['kind'] | Binding['kind'];
  const namespaced = kind === 'Role' || kind === 'RoleBinding';
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const name = requiredString(metadata.name, 'metadata.name');
  const namespace = namespaced ? requiredString(metadata.namespace, 'metadata.namespace') : '';
  if (!namespaced && metadata.namespace !== undefined && metadata.namespace !== '') throw new Error(`metadata.namespace: Forbidden: ${kind} is cluster-scoped`);
  if (kind === 'Role' || kind === 'ClusterRole') {
    if (value.aggregationRule !== undefined) throw new Error('aggregationRule: Unsupported: list the rules of an aggregated ClusterRole in the role itself');
    if (value.rules !== undefined && value.rules !== null && !Array.isArray(value.rules)) throw new Error('rules: must be a list');
    const rules = ((value.rules ?? []) as unknown[]).map((rule, i) => policyRule(rule, `rules[${i}]`, namespaced));
    return { kind, name, namespace, rules };
  }
  if (!isObject(value.roleRef)) throw new Error('roleRef: Required value');
  const roleRef = value.roleRef;
  if (roleRef.apiGroup !== rbacGroup)
    throw new Error(`roleRef.apiGroup: Unsupported value: ${JSON.stringify(roleRef.apiGroup)}: supported values: "${rbacGroup}"`);
  const roleKinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (typeof roleRef.kind !== 'string' || !roleKinds.includes(roleRef.kind))
    throw new Error(`roleRef.kind: Unsupported value: ${JSON.stringify(roleRef.kind)}: supported values: ${roleKinds.map((k) => `"${k}"`).join(', ')}`);
  const roleName = requiredString(roleRef.name, 'roleRef.name');
  if (value.subjects !== undefined && value.subjects !== null && !Array.isArray(value.subjects)) throw new Error('subjects: must be a list');
  const subjects = ((value.subjects ?? []) as unknown[]).map((s, i) => subject(s, `subjects[${i}]`, namespaced));
  return { kind, name, namespace, roleRef: { kind: roleRef.kind as Role['kind'], name: roleName }, subjects };
}

const describeObject = (o: { kind: string; name: string; namespace: string }) =>
  `${o.kind} ${JSON.stringify(o.namespace ? `${o.namespace}/${o.name}` : o.name)}`;

/** The objects of the YAML documents, a `List`'s items in its place. */
function manifests(text: string): { readonly where: string; readonly value: unknown }[] {
  const found: { where: string; value: unknown }[] = [];
  parseAllDocuments(text).forEach((document, d) => {
    if (document.errors.length > 0) throw new Error(`document ${d + 1}: ${document.errors[0].message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return;
    if (isObject(value) && value.kind === 'List' && value.apiVersion === 'v1') {
      if (!Array.isArray(value.items)) throw new Error(`document ${d + 1}: items: must be a list`);
      value.items.forEach((item: unknown, i: number) => found.push({ where: `document ${d + 1}, items[${i}]`, value: item }));
    } else found.push({ where: `document ${d + 1}`, value });
  });
  return found;
}

/**
 * Parses a policy file's text. Throws with what is wrong and where: the YAML, an object
 * of another kind, a field kube would refuse, two objects of one name, or a binding to a
 * role neither the file nor `builtIn` (what every policy has) defines.
 */
export function parseRbacPolicy(text: string, builtIn: RbacPolicy = { roles: [], bindings: [] }): RbacPolicy {
  const roles: Role[] = [];
  const bindings: Binding[] = [];
  const seen = new Set([...builtIn.roles, ...builtIn.bindings].map(describeObject));
  for (const { where, value } of manifests(text)) {
    if (!isObject(value)) throw new Error(`${where}: not an object`);
    if (value.apiVersion !== rbacVersion || typeof value.kind !== 'string' || !policyKinds.has(value.kind))
      throw new Error(
        `${where}: ${JSON.stringify(value.apiVersion)} ${JSON.stringify(value.kind)} is not a ${rbacVersion} Role, ClusterRole, RoleBinding or ClusterRoleBinding`,
      );
    let object: Role | Binding;
    try {
      object = policyObject(value);
    } catch (error) {
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const namespace = typeof metadata.namespace === 'string' && metadata.namespace !== '' ? `${metadata.namespace}/` : '';
      const name = typeof metadata.name === 'string' ? ` ${JSON.stringify(namespace + metadata.name)}` : '';
      throw new Error(`${where} (${value.kind}${name}): ${(error as Error).message}`, { cause: error });
    }
    if (seen.has(describeObject(object))) throw new Error(`${where}: ${describeObject(object)} is defined twice`);
    seen.add(describeObject(object));
    if ('rules' in object) roles.push(object);
    else bindings.push(object);
  }
  for (const binding of bindings) {
    const role = { kind: binding.roleRef.kind, name: binding.roleRef.name, namespace: binding.roleRef.kind === 'Role' ? binding.namespace : '' };
    if (!seen.has(describeObject(role))) throw new Error(`${describeObject(binding)} refers to ${describeObject(role)}, which is not defined`);
  }
  return { roles, bindings };
}
