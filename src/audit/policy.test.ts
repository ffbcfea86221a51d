/**
 * Audit policies as kube reads them: which rule matches a request and the level it gives, and
 * policy files in YAML and JSON.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditPolicyRuleEvaluator, auditRuleMatches, loadAuditPolicyFile, parseAuditPolicy, type AuditPolicy, type AuditPolicyRule } from './policy.js';
import type { AuthorizationAttributes } from '../auth/authorizer.js';
import type { UserInfo } from '../auth/user-info.js';
import { nonResourceAttributes, pipelineAttributes } from '../../test/support/authorization-attributes.js';

const jane: UserInfo = { name: 'jane', groups: ['devs', 'system:authenticated'] };

const nonResource = (path: string, verb = 'get', user: UserInfo = jane) => nonResourceAttributes(user, verb, path);
const resource = (rest: Partial<AuthorizationAttributes> = {}) =>
  pipelineAttributes(jane, 'get', { path: '/apis/cairn.dev/v1/namespaces/ns/pipelines/build', name: 'build', ...rest });

describe('auditRuleMatches', () => {
  const rule = (selectors: Omit<AuditPolicyRule, 'level'>): AuditPolicyRule => ({ level: 'Metadata', ...selectors });

  it.each<[string, AuditPolicyRule, AuthorizationAttributes, boolean]>([
    ['no selector: every resource request', rule({}), resource(), true],
    ['no selector: every non-resource request', rule({}), nonResource('/healthz'), true],
    ['users: the user', rule({ users: ['jane'] }), resource(), true],
    ['users: another user', rule({ users: ['bob'] }), resource(), false],
    ['userGroups: one of the groups', rule({ userGroups: ['ops', 'devs'] }), resource(), true],
    ['userGroups: none of the groups', rule({ userGroups: ['ops'] }), resource(), false],
    [
      'userGroups: system:unauthenticated for anonymous',
      rule({ userGroups: ['system:unauthenticated'] }),
      resource({ user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } }),
      true,
    ],
    ['verbs: the verb', rule({ verbs: ['get', 'list'] }), resource(), true],
    ['verbs: another verb', rule({ verbs: ['watch'] }), resource(), false],
    ['users and verbs: both must match', rule({ users: ['jane'], verbs: ['delete'] }), resource(), false],
    ['namespaces: the namespace', rule({ namespaces: ['ns'] }), resource(), true],
    ['namespaces: another namespace', rule({ namespaces: ['other'] }), resource(), false],
    ['namespaces: "" for cluster-scoped requests', rule({ namespaces: [''] }), resource({ namespace: '', resource: 'runnerclasses' }), true],
    ['namespaces: never a non-resource request', rule({ namespaces: ['ns'] }), nonResource('/healthz'), false],
    ['resources: the group, all its resources', rule({ resources: [{ group: 'cairn.dev' }] }), resource(), true],
    ['resources: another group', rule({ resources: [{ group: '' }] }), resource(), false],
    ['resources: the core group by omission', rule({ resources: [{ resources: ['pods'] }] }), resource({ apiGroup: '', resource: 'pods' }), true],
    ['resources: group "*"', rule({ resources: [{ group: '*', resources: ['pipelines'] }] }), resource(), true],
    ['resources: the resource', rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines'] }] }), resource(), true],
    ['resources: another resource', rule({ resources: [{ group: 'cairn.dev', resources: ['runnerclasses'] }] }), resource(), false],
    ['resources: "*"', rule({ resources: [{ group: 'cairn.dev', resources: ['*'] }] }), resource({ subresource: 'status' }), true],
    [
      'resources: a resource does not match its subresource',
      rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines'] }] }),
      resource({ subresource: 'status' }),
      false,
    ],
    [
      'resources: resource/subresource',
      rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines/status'] }] }),
      resource({ subresource: 'status' }),
      true,
    ],
    ['resources: resource/subresource is not the resource', rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines/status'] }] }), resource(), false],
    ['resources: */subresource', rule({ resources: [{ group: 'cairn.dev', resources: ['*/scale'] }] }), resource({ subresource: 'scale' }), true],
    [
      'resources: */subresource is not another subresource',
      rule({ resources: [{ group: 'cairn.dev', resources: ['*/scale'] }] }),
      resource({ subresource: 'status' }),
      false,
    ],
    ['resources: */subresource is not a main resource', rule({ resources: [{ group: 'cairn.dev', resources: ['*/scale'] }] }), resource(), false],
    [
      'resources: resource/* matches a subresource',
      rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines/*'] }] }),
      resource({ subresource: 'log' }),
      true,
    ],
    ['resources: resource/* matches the resource', rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines/*'] }] }), resource(), true],
    ['resourceNames: the name', rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines'], resourceNames: ['build'] }] }), resource(), true],
    ['resourceNames: another name', rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines'], resourceNames: ['deploy'] }] }), resource(), false],
    [
      'resourceNames: not a list',
      rule({ resources: [{ group: 'cairn.dev', resources: ['pipelines'], resourceNames: ['build'] }] }),
      resource({ name: '', verb: 'list' }),
      false,
    ],
    ['resources: any of the group resources', rule({ resources: [{ group: '' }, { group: 'cairn.dev', resources: ['pipelines'] }] }), resource(), true],
    ['resources and namespaces: both must match', rule({ namespaces: ['other'], resources: [{ group: 'cairn.dev' }] }), resource(), false],
    ['resources: never a non-resource request', rule({ resources: [{ group: '*' }] }), nonResource('/healthz'), false],
    ['nonResourceURLs: the path', rule({ nonResourceURLs: ['/healthz'] }), nonResource('/healthz'), true],
    ['nonResourceURLs: another path', rule({ nonResourceURLs: ['/healthz'] }), nonResource('/livez'), false],
    ['nonResourceURLs: a trailing * matches below', rule({ nonResourceURLs: ['/healthz*'] }), nonResource('/healthz/ping'), true],
    ['nonResourceURLs: a trailing * is a prefix', rule({ nonResourceURLs: ['/api*'] }), nonResource('/apis'), true],
    ['nonResourceURLs: "*" matches every path', rule({ nonResourceURLs: ['*'] }), nonResource('/version'), true],
    ['nonResourceURLs: never a resource request', rule({ nonResourceURLs: ['*'] }), resource(), false],
  ])('%s', (_, r, attributes, matches) => {
    expect(auditRuleMatches(r, attributes)).toBe(matches);
  });
});

describe('auditPolicyRuleEvaluator', () => {
  const policy: AuditPolicy = {
    omitStages: ['RequestReceived'],
    omitManagedFields: true,
    rules: [
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', resources: [{ group: 'cairn.dev', resources: ['pipelines'] }], omitStages: ['ResponseStarted'], omitManagedFields: false },
      { level: 'Request', verbs: ['create', 'update', 'patch'] },
      { level: 'Metadata', nonResourceURLs: ['/apis*'] },
    ],
  };
  const evaluator = auditPolicyRuleEvaluator(policy);

  it.each<[string, AuthorizationAttributes, string, string[], boolean]>([
    ['the first matching rule wins', resource({ user: { name: 'system:kube-proxy', groups: [] } }), 'None', ['RequestReceived'], true],
    ['a rule omits its stages and the policy’s, and overrides omitManagedFields', resource(), 'RequestResponse', ['RequestReceived', 'ResponseStarted'], false],
    ['a later rule when the earlier do not match', resource({ resource: 'runnerclasses', verb: 'create' }), 'Request', ['RequestReceived'], true],
    ['non-resource URLs', nonResource('/apis/cairn.dev'), 'Metadata', ['RequestReceived'], true],
    ['no rule: None, with the policy’s stages and omitManagedFields', nonResource('/healthz'), 'None', ['RequestReceived'], true],
  ])('%s', (_, attributes, level, omitStages, omitManagedFields) => {
    const config = evaluator.evaluatePolicyRule(attributes);
    expect(config.level).toBe(level);
    expect([...config.omitStages].sort()).toEqual(omitStages.sort());
    expect(config.omitManagedFields).toBe(omitManagedFields);
  });
});

const header = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';

describe('parseAuditPolicy', () => {
  it('reads a YAML policy with every field', () => {
    const { policy, warnings } = parseAuditPolicy(`${header}metadata:
  name: p
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: RequestResponse
  users: [jane]
  userGroups: [devs]
  verbs: [get]
  namespaces: [ns]
  resources:
  - group: cairn.dev
    resources: [pipelines, pipelines/status]
    resourceNames: [build]
  omitStages: [Panic]
  omitManagedFields: false
- level: Metadata
  nonResourceURLs: ['/healthz*']
`);
    expect(warnings).toEqual([]);
    expect(policy).toEqual({
      omitStages: ['RequestReceived'],
      omitManagedFields: true,
      rules: [
        {
          level: 'RequestResponse',
          users: ['jane'],
          userGroups: ['devs'],
          verbs: ['get'],
          namespaces: ['ns'],
          resources: [{ group: 'cairn.dev', resources: ['pipelines', 'pipelines/status'], resourceNames: ['build'] }],
          omitStages: ['Panic'],
          omitManagedFields: false,
        },
        { level: 'Metadata', nonResourceURLs: ['/healthz*'] },
      ],
    });
  });

  it('reads a JSON policy', () => {
    const { policy } = parseAuditPolicy(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }));
    expect(policy).toEqual({ rules: [{ level: 'Metadata' }] });
  });

  it('warns of unknown fields and decodes the rest, as kube falls back to lenient decoding', () => {
    const { policy, warnings } = parseAuditPolicy(`${header}rules:\n- level: Metadata\n  verb: [get]\n  resources:\n  - group: ''\n    resource: [pods]\n`);
    expect(warnings).toEqual(['unknown field "rules[0].verb"', 'unknown field "rules[0].resources[0].resource"']);
    expect(policy.rules).toEqual([{ level: 'Metadata', resources: [{ group: '' }] }]);
  });

  it.each<[string, string, string]>([
    ['not YAML', 'rules: [', 'failed decoding: '],
    ['not an object', '- level: Metadata\n', 'failed decoding: the policy is not an object'],
    ['no apiVersion', 'kind: Policy\nrules:\n- level: Metadata\n', "failed decoding: Object 'apiVersion' is missing"],
    ['no kind', 'apiVersion: audit.k8s.io/v1\nrules:\n- level: Metadata\n', "failed decoding: Object 'Kind' is missing"],
    [
      'a removed version',
      'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n',
      'no kind "Policy" is registered for version "audit.k8s.io/v1beta1"',
    ],
    ['another kind', 'apiVersion: audit.k8s.io/v1\nkind: Event\nrules:\n- level: Metadata\n', 'no kind "Event" is registered for version "audit.k8s.io/v1"'],
    ['rules of the wrong type', `${header}rules: all\n`, 'failed decoding: rules: Invalid value: "all": must be a list'],
    [
      'a selector of the wrong type',
      `${header}rules:\n- level: Metadata\n  users: jane\n`,
      'failed decoding: rules[0].users: Invalid value: "jane": must be a list of strings',
    ],
    [
      'omitManagedFields of the wrong type',
      `${header}omitManagedFields: "yes"\nrules:\n- level: Metadata\n`,
      'omitManagedFields: Invalid value: "yes": must be a boolean',
    ],
    ['no rules', `${header}rules: []\n`, 'loaded illegal policy with 0 rules'],
    ['a rule without a level', `${header}rules:\n- verbs: [get]\n`, 'rules[0].level: Required value'],
    [
      'an unknown level',
      `${header}rules:\n- level: Everything\n`,
      'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
    ],
    [
      'an unknown stage',
      `${header}omitStages: [Started]\nrules:\n- level: Metadata\n`,
      'omitStages[0]: Invalid value: "Started": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
    ],
    ['an unknown stage in a rule', `${header}rules:\n- level: Metadata\n  omitStages: [Done]\n`, 'rules[0].omitStages[0]: Invalid value: "Done"'],
    [
      'a relative non-resource URL',
      `${header}rules:\n- level: Metadata\n  nonResourceURLs: [healthz]\n`,
      `rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`,
    ],
    [
      'a wildcard inside a URL',
      `${header}rules:\n- level: Metadata\n  nonResourceURLs: ['/a*/b']\n`,
      `rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards '*' must be the final character of the rule`,
    ],
    [
      'URLs with resources',
      `${header}rules:\n- level: Metadata\n  nonResourceURLs: [/healthz]\n  namespaces: [ns]\n`,
      'rules cannot apply to both regular resources and non-resource URLs',
    ],
    [
      'a group with a version',
      `${header}rules:\n- level: Metadata\n  resources:\n  - group: cairn.dev/v1\n`,
      'rules[0].resources.group: Invalid value: "cairn.dev/v1": a lowercase RFC 1123 subdomain',
    ],
    [
      'resourceNames without resources',
      `${header}rules:\n- level: Metadata\n  resources:\n  - group: cairn.dev\n    resourceNames: [build]\n`,
      'rules[0].resources.resourceNames: Invalid value: ["build"]: using resourceNames requires at least one resource',
    ],
    ['every problem at once', `${header}rules:\n- {}\n- level: Some\n`, '[rules[0].level: Required value, rules[1].level: Unsupported value: "Some"'],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseAuditPolicy(text)).toThrow(message);
  });
});

describe('loadAuditPolicyFile', () => {
  it('names the file in its errors, as kube-apiserver does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-audit-policy-'));
    try {
      const file = join(dir, 'policy.yaml');
      await writeFile(file, `${header}rules: []\n`);
      await expect(loadAuditPolicyFile(file)).rejects.toThrow(`loading audit policy file: loaded illegal policy with 0 rules: from file ${file}`);
      await expect(loadAuditPolicyFile(join(dir, 'missing.yaml'))).rejects.toThrow(
        `loading audit policy file: failed to read file path "${join(dir, 'missing.yaml')}"`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
