/**
 * Which requests an admission webhook's rules match, as kube's rules.Matcher decides.
 */
import { describe, expect, it } from 'vitest';
import { webhookConfigurations, type Webhook } from './webhook-configuration.js';
import type { ApiEndpoint } from '../../apis/api-endpoint.js';
import { matchedEndpoint, ruleMatches, type RuleTarget } from './webhook-rules.js';

const create: RuleTarget = { operation: 'CREATE', group: 'cairn.dev', version: 'v1', resource: 'pipelines', namespaced: true };
const rule = { operations: ['CREATE'], apiGroups: ['cairn.dev'], apiVersions: ['v1'], resources: ['pipelines'], scope: '*' };

describe('webhook rules, as kube’s rules.Matcher', () => {
  it.each([
    ['the named operation, group, version and resource', rule, create, true],
    ['another operation', rule, { ...create, operation: 'UPDATE' }, false],
    ['every operation by *', { ...rule, operations: ['*'] }, { ...create, operation: 'UPDATE' }, true],
    ['another group', rule, { ...create, group: 'example.com' }, false],
    ['another version', rule, { ...create, version: 'v1alpha1' }, false],
    ['a subresource the rule does not name', rule, { ...create, subresource: 'status' }, false],
    ['a subresource it names', { ...rule, resources: ['pipelines/status'] }, { ...create, subresource: 'status' }, true],
    ['every subresource by pipelines/*', { ...rule, resources: ['pipelines/*'] }, { ...create, subresource: 'scale' }, true],
    ['the main resource too by pipelines/*', { ...rule, resources: ['pipelines/*'] }, create, true],
    ['any main resource by *', { ...rule, resources: ['*'] }, { ...create, resource: 'runnerclasses' }, true],
    ['no subresource by *', { ...rule, resources: ['*'] }, { ...create, subresource: 'scale' }, false],
    ['a namespaced object under scope Namespaced', { ...rule, scope: 'Namespaced' }, create, true],
    ['a namespaced object under scope Cluster', { ...rule, scope: 'Cluster' }, create, false],
    ['a cluster-scoped object under scope Cluster', { ...rule, scope: 'Cluster' }, { ...create, namespaced: false }, true],
  ])('%s: %s', (_what, r, target, matches) => {
    expect(ruleMatches(r, target)).toBe(matches);
  });

  const webhook = (matchPolicy: string): Webhook =>
    webhookConfigurations([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'c' },
        webhooks: [{ name: 'w', clientConfig: { url: 'https://x' }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'], matchPolicy }],
      },
    ]).validating[0];

  it('sends the request’s endpoint when a rule names its version; an equivalent endpoint of another version under Equivalent only', () => {
    const equivalents = ['v1', 'v1beta1', 'v1alpha1'].map((version) => ({ version }) as ApiEndpoint);
    const [v1] = equivalents;
    expect(matchedEndpoint(webhook('Equivalent'), create, equivalents)).toBe(v1);
    expect(matchedEndpoint(webhook('Equivalent'), { ...create, version: 'v1alpha1' }, equivalents)).toBe(v1);
    expect(matchedEndpoint(webhook('Exact'), { ...create, version: 'v1alpha1' }, equivalents)).toBeUndefined();
    expect(matchedEndpoint(webhook('Equivalent'), { ...create, operation: 'UPDATE' }, equivalents)).toBeUndefined();
    expect(matchedEndpoint(webhook('Equivalent'), { ...create, version: 'v1alpha1' }, equivalents.slice(1))).toBeUndefined();
  });
});
