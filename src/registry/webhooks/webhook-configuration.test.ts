/**
 * Reading admission webhook configurations from a file: kube's defaults, the caBundle, and
 * their order.
 */
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseWebhookConfigurations, webhookConfigurations } from './webhook-configuration.js';

const hook = (name: string, extra = '') => `
  - name: ${name}
    clientConfig: {url: "https://hooks.example/${name}", caBundle: ${Buffer.from('PEM').toString('base64')}}
    sideEffects: None
    admissionReviewVersions: [v1]${extra}`;

const configuration = (kind: string, name: string, webhooks: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}}
webhooks:${webhooks}
`;

describe('webhook configurations from a file', () => {
  it('applies kube’s defaults and decodes the caBundle', () => {
    const { validating, mutating } = webhookConfigurations(parseWebhookConfigurations(configuration('ValidatingWebhookConfiguration', 'v', hook('a'))));
    expect(mutating).toEqual([]);
    expect(validating).toEqual([
      {
        configuration: 'v',
        name: 'a',
        clientConfig: { url: 'https://hooks.example/a', caBundle: 'PEM' },
        rules: [],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: [],
        objectSelector: [],
        sideEffects: 'None',
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      },
    ]);
  });

  it('orders configurations by name, and webhooks as each lists them, across documents and Lists', () => {
    const text = [
      configuration('MutatingWebhookConfiguration', 'z', hook('z1') + hook('z0')),
      stringify({ apiVersion: 'v1', kind: 'List', items: [parse(configuration('MutatingWebhookConfiguration', 'a', hook('a1')))] }),
      configuration('ValidatingWebhookConfiguration', 'm', hook('m1')),
    ].join('---\n');
    const { mutating, validating } = webhookConfigurations(parseWebhookConfigurations(text));
    expect(mutating.map((w) => w.name)).toEqual(['a1', 'z1', 'z0']);
    expect(validating.map((w) => w.name)).toEqual(['m1']);
  });

  it.each([
    ['another kind', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', /expected admissionregistration.k8s.io\/v1/],
    [
      'no sideEffects',
      configuration('ValidatingWebhookConfiguration', 'v', hook('a').replace('sideEffects: None', 'sideEffects: Maybe')),
      /sideEffects must be one of/,
    ],
    ['no v1 review version', configuration('ValidatingWebhookConfiguration', 'v', hook('a').replace('[v1]', '[v1beta1]')), /must include v1/],
    ['a plain http URL', configuration('ValidatingWebhookConfiguration', 'v', hook('a').replace('https://', 'http://')), /https:\/\/ URL/],
    ['a timeout over 30 s', configuration('ValidatingWebhookConfiguration', 'v', hook('a', '\n    timeoutSeconds: 31')), /between 1 and 30/],
    [
      'an unknown selector operator',
      configuration('ValidatingWebhookConfiguration', 'v', hook('a', '\n    objectSelector: {matchExpressions: [{key: a, operator: Near}]}')),
      /not a valid label selector operator/,
    ],
  ])('refuses %s', (_what, text, error) => {
    expect(() => parseWebhookConfigurations(text)).toThrow(error);
  });
});
