/**
 * kube's audit policy (`audit.k8s.io/v1` Policy, the file of `--audit-policy-file`):
 * decoding it from YAML or JSON, validating it as k8s.io/apiserver's
 * `validation.ValidatePolicy` does, and evaluating it per request as its
 * `policyRuleEvaluator` does: the rules in order, the first that matches decides.
 *
 * @example
 * const policy = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
 * auditPolicyRuleEvaluator(policy.policy).evaluatePolicyRule(attributes).level; // 'Metadata'
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { FieldError } from '../machinery/errors.js';
import { FieldPath, fieldPath, invalid, notSupported, required, typeInvalid } from '../machinery/field-errors.js';
import { validateDns1123Subdomain } from '../machinery/meta/names.js';
import { auditLevels, auditStages, type AuditLevel, type AuditPolicyRuleEvaluator, type AuditStage, type RequestAuditConfig } from './audit.js';
import type { AuthorizationAttributes } from '../auth/authorizer.js';

/** The resources of one API group a rule selects (kube's `GroupResources`). */
export interface AuditGroupResources {
  /** '' for the core group, `*` for every group. */
  readonly group?: string;
  /** `pipelines`, `pipelines/status`, `pipelines/*` (and its subresources), `*`, or `*` + `/status` (that subresource of any resource); empty for all of the group's. */
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** One rule of a policy (kube's `PolicyRule`): every selector given must match. */
export interface AuditPolicyRule {
  readonly level: AuditLevel;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly AuditGroupResources[];
  /** '' selects cluster-scoped requests. */
  readonly namespaces?: readonly string[];
  /** Paths of non-resource requests; a final `*` matches any suffix. */
  readonly nonResourceURLs?: readonly string[];
  readonly omitStages?: readonly AuditStage[];
  /** Overrides the policy's {@link AuditPolicy.omitManagedFields} when set. */
  readonly omitManagedFields?: boolean;
}

/** kube's audit `Policy`. */
export interface AuditPolicy {
  readonly rules: readonly AuditPolicyRule[];
  /** Stages no rule records. */
  readonly omitStages?: readonly AuditStage[];
  readonly omitManagedFields?: boolean;
}

/** A decoded policy, and what kube's lenient decoding would warn of (unknown fields). */
export interface DecodedAuditPolicy {
  readonly policy: AuditPolicy;
  readonly warnings: readonly string[];
}

const apiVersion = 'audit.k8s.io/v1';
const policyFields = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const ruleFields = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const groupResourcesFields = new Set(['group', 'resources', 'resourceNames']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the shape of a decoded document: each field of the type kube's Go struct has, unknown fields noted. */
class ShapeChecker {
  readonly errors: FieldError[] = [];
  readonly unknown: string[] = [];

  object(value: unknown, path: FieldPath, known: ReadonlySet<string>): Record<string, unknown> | undefined {
    if (!isRecord(value)) {
      this.errors.push(typeInvalid(path, value, 'must be an object'));
      return undefined;
    }
    for (const key of Object.keys(value)) if (!known.has(key)) this.unknown.push(path.child(key).toString());
    return value;
  }

  strings(value: unknown, path: FieldPath): readonly string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      this.errors.push(typeInvalid(path, value, 'must be a list of strings'));
      return undefined;
    }
    return value;
  }

  string(value: unknown, path: FieldPath): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.errors.push(typeInvalid(path, value, 'must be a string'));
      return undefined;
    }
    return value;
  }

  boolean(value: unknown, path: FieldPath): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.errors.push(typeInvalid(path, value, 'must be a boolean'));
      return undefined;
    }
    return value;
  }

  list(value: unknown, path: FieldPath): readonly unknown[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.errors.push(typeInvalid(path, value, 'must be a list'));
      return undefined;
    }
    return value as unknown[];
  }
}

/** Drops the keys whose value is undefined, so a decoded policy reads as it was written. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function decodeRule(check: ShapeChecker, value: unknown, path: FieldPath): AuditPolicyRule {
  const rule = check.object(value, path, ruleFields) ?? {};
  const resources = check.list(rule.resources, path.child('resources'))?.map((item, i) => {
    const at = path.child('resources').index(i);
    const gr = check.object(item, at, groupResourcesFields) ?? {};
    return defined<AuditGroupResources>({
      group: check.string(gr.group, at.child('group')),
      resources: check.strings(gr.resources, at.child('resources')),
      resourceNames: check.strings(gr.resourceNames, at.child('resourceNames')),
    });
  });
  return defined<AuditPolicyRule>({
    level: (check.string(rule.level, path.child('level')) ?? '') as AuditLevel,
    users: check.strings(rule.users, path.child('users')),
    userGroups: check.strings(rule.userGroups, path.child('userGroups')),
    verbs: check.strings(rule.verbs, path.child('verbs')),
    resources,
    namespaces: check.strings(rule.namespaces, path.child('namespaces')),
    nonResourceURLs: check.strings(rule.nonResourceURLs, path.child('nonResourceURLs')),
    omitStages: check.strings(rule.omitStages, path.child('omitStages')) as AuditStage[] | undefined,
    omitManagedFields: check.boolean(rule.omitManagedFields, path.child('omitManagedFields')),
  });
}

/** kube's `field.ErrorList.ToAggregate().Error()`. */
function aggregate(errors: readonly FieldError[]): string {
  const lines = errors.map((e) => `${e.field}: ${e.message}`);
  return lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
}

function validateOmitStages(stages: readonly string[] | undefined, path: FieldPath): FieldError[] {
  return (stages ?? []).flatMap((stage, i) =>
    auditStages.includes(stage as AuditStage) ? [] : [invalid(path.index(i), stage, `allowed stages are ${auditStages.join(',')}`)],
  );
}

function validateRule(rule: AuditPolicyRule, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if ((rule.level as string) === '') errors.push(required(path.child('level')));
  else if (!auditLevels.includes(rule.level)) errors.push(notSupported(path.child('level'), rule.level, auditLevels));
  (rule.nonResourceURLs ?? []).forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errors.push(invalid(path.child('nonResourceURLs').index(i), url, "non-resource URL rules must begin with a '/' character"));
    if (url.slice(0, -1).includes('*'))
      errors.push(invalid(path.child('nonResourceURLs').index(i), url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  for (const gr of rule.resources ?? []) {
    const group = gr.group ?? '';
    const problems = group === '' || group === '*' ? [] : validateDns1123Subdomain(group);
    if (problems.length) errors.push(invalid(path.child('resources').child('group'), group, problems.join(',')));
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0)
      errors.push(invalid(path.child('resources').child('resourceNames'), gr.resourceNames, 'using resourceNames requires at least one resource'));
  }
  errors.push(...validateOmitStages(rule.omitStages, path.child('omitStages')));
  if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0))
    errors.push(invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  return errors;
}

/**
 * Decodes and validates a policy document (YAML, or JSON), as kube's
 * `LoadPolicyFromBytes`: an `audit.k8s.io/v1` Policy with at least one rule. Throws
 * naming what is wrong; unknown fields are only warnings, as kube's lenient fallback has them.
 */
export function parseAuditPolicy(text: string): DecodedAuditPolicy {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new Error(`failed decoding: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(document)) throw new Error('failed decoding: the policy is not an object');
  if (typeof document.apiVersion !== 'string' || document.apiVersion === '') throw new Error("failed decoding: Object 'apiVersion' is missing");
  if (typeof document.kind !== 'string' || document.kind === '') throw new Error("failed decoding: Object 'Kind' is missing");
  if (document.apiVersion !== apiVersion || document.kind !== 'Policy')
    throw new Error(`failed decoding: no kind ${JSON.stringify(document.kind)} is registered for version ${JSON.stringify(document.apiVersion)}`);
  const check = new ShapeChecker();
  check.object(document, FieldPath.root, policyFields);
  const policy = defined<AuditPolicy>({
    rules: (check.list(document.rules, fieldPath('rules')) ?? []).map((rule, i) => decodeRule(check, rule, fieldPath('rules').index(i))),
    omitStages: check.strings(document.omitStages, fieldPath('omitStages')) as AuditStage[] | undefined,
    omitManagedFields: check.boolean(document.omitManagedFields, fieldPath('omitManagedFields')),
  });
  if (check.errors.length) throw new Error(`failed decoding: ${aggregate(check.errors)}`);
  const errors = [
    ...validateOmitStages(policy.omitStages, fieldPath('omitStages')),
    ...policy.rules.flatMap((rule, i) => validateRule(rule, fieldPath('rules').index(i))),
  ];
  if (errors.length) throw new Error(aggregate(errors));
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return { policy, warnings: check.unknown.map((field) => `unknown field "${field}"`) };
}

/** Reads `--audit-policy-file`; errors read as kube-apiserver's. */
export async function loadAuditPolicyFile(path: string): Promise<DecodedAuditPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`loading audit policy file: failed to read file path ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseAuditPolicy(text);
  } catch (error) {
    throw new Error(`loading audit policy file: ${(error as Error).message}: from file ${path}`, { cause: error });
  }
}

/** kube's `pathMatches`: `*`, the exact path, or a prefix ending in `*`. */
function pathMatches(path: string, spec: string): boolean {
  return spec === '*' || spec === path || (spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, '')));
}

function resourceMatches(gr: AuditGroupResources, a: AuthorizationAttributes): boolean {
  if ((gr.group ?? '') !== a.apiGroup && gr.group !== '*') return false;
  if (!gr.resources?.length) return true;
  if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return gr.resources.some(
    (res) =>
      res === combined ||
      res === '*' ||
      (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource) ||
      (res.endsWith('/*') && res.slice(0, -2) === a.resource),
  );
}

/** kube's `ruleMatches`: every selector the rule has must match the request. */
export function auditRuleMatches(rule: AuditPolicyRule, a: AuthorizationAttributes): boolean {
  if (rule.users?.length && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups?.length && !a.user.groups.some((group) => rule.userGroups!.includes(group))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) {
    if (!a.isResourceRequest) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(a.namespace)) return false;
    return !rule.resources?.length || rule.resources.some((gr) => resourceMatches(gr, a));
  }
  if (rule.nonResourceURLs?.length) return !a.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

/** kube's `NewPolicyRuleEvaluator`: the first matching rule decides, with the policy's omitted stages added to its own; no match audits nothing. */
export function auditPolicyRuleEvaluator(policy: AuditPolicy): AuditPolicyRuleEvaluator {
  const policyOmits = policy.omitStages ?? [];
  const configs = policy.rules.map((rule): RequestAuditConfig =>
    Object.freeze({
      level: rule.level,
      omitStages: Object.freeze([...new Set([...policyOmits, ...(rule.omitStages ?? [])])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    }),
  );
  const fallback: RequestAuditConfig = Object.freeze({
    level: 'None',
    omitStages: Object.freeze([...policyOmits]),
    omitManagedFields: policy.omitManagedFields ?? false,
  });
  return Object.freeze({
    evaluatePolicyRule(attributes: AuthorizationAttributes): RequestAuditConfig {
      const index = policy.rules.findIndex((rule) => auditRuleMatches(rule, attributes));
      return index < 0 ? fallback : configs[index];
    },
  });
}
