/**
 * `admissionregistration.k8s.io/v1` Mutating- and ValidatingWebhookConfigurations as
 * admission reads them: each webhook with kube's defaults applied (failurePolicy Fail,
 * matchPolicy Equivalent, timeoutSeconds 10, scope `*`, empty selectors), in the order
 * kube calls them: configurations by name, then their webhooks as listed.
 */
import { parseAllDocuments } from 'yaml';
import { isPlainObject, type KubeObject } from '../../machinery/meta/object.js';
import { labelSelectorOf, type LabelSelector } from '../../machinery/selectors/label-selector.js';

/** One rule of a webhook, as `RuleWithOperations`. */
export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  /** `Cluster`, `Namespaced` or `*`. */
  readonly scope: string;
}

/** Where a webhook is called: `clientConfig`. */
export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly path?: string; readonly port?: number };
  /** PEM, decoded from the base64 `caBundle`. */
  readonly caBundle?: string;
}

/** One webhook of a configuration, defaulted. */
export interface Webhook {
  /** The configuration it belongs to. */
  readonly configuration: string;
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: LabelSelector;
  readonly objectSelector: LabelSelector;
  readonly sideEffects: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  readonly timeoutSeconds: number;
  /** Mutating webhooks only: `IfNeeded` calls it once more when a later webhook changed the object. */
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
}

/** The webhooks admission calls, each list in kube's order. */
export interface WebhookConfigurations {
  readonly mutating: readonly Webhook[];
  readonly validating: readonly Webhook[];
}

/** No webhooks. */
export const noWebhooks: WebhookConfigurations = Object.freeze({ mutating: [], validating: [] });

const apiVersion = 'admissionregistration.k8s.io/v1';
const kinds = { MutatingWebhookConfiguration: 'mutating', ValidatingWebhookConfiguration: 'validating' } as const;

function strings(value: unknown, what: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`${what} must be a list of strings`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T | undefined, what: string): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (!allowed.includes(value as T)) throw new Error(`${what} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function selector(value: unknown, what: string): LabelSelector {
  if (value === undefined) return [];
  if (!isPlainObject(value)) throw new Error(`${what} must be an object`);
  try {
    return labelSelectorOf(value);
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`, { cause: error });
  }
}

function rule(value: unknown, what: string): WebhookRule {
  if (!isPlainObject(value)) throw new Error(`${what} must be an object`);
  return {
    operations: strings(value.operations, `${what}.operations`),
    apiGroups: strings(value.apiGroups, `${what}.apiGroups`),
    apiVersions: strings(value.apiVersions, `${what}.apiVersions`),
    resources: strings(value.resources, `${what}.resources`),
    scope: oneOf(value.scope, ['Cluster', 'Namespaced', '*'], '*', `${what}.scope`),
  };
}

function clientConfig(value: unknown, what: string): WebhookClientConfig {
  if (!isPlainObject(value)) throw new Error(`${what} is required`);
  const { url, service, caBundle } = value;
  if ((url === undefined) === (service === undefined)) throw new Error(`${what}: exactly one of url or service is required`);
  if (url !== undefined && (typeof url !== 'string' || !url.startsWith('https://'))) throw new Error(`${what}.url must be an https:// URL`);
  if (service !== undefined && !(isPlainObject(service) && typeof service.namespace === 'string' && typeof service.name === 'string'))
    throw new Error(`${what}.service needs a namespace and a name`);
  if (caBundle !== undefined && typeof caBundle !== 'string') throw new Error(`${what}.caBundle must be base64`);
  return {
    ...(url !== undefined ? { url } : {}),
    ...(service !== undefined ? { service: service as WebhookClientConfig['service'] } : {}),
    ...(caBundle ? { caBundle: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
  };
}

function webhook(configuration: string, value: unknown, what: string): Webhook {
  if (!isPlainObject(value) || typeof value.name !== 'string') throw new Error(`${what}.name is required`);
  const versions = strings(value.admissionReviewVersions, `${what}.admissionReviewVersions`);
  if (!versions.includes('v1')) throw new Error(`${what}.admissionReviewVersions must include v1`);
  const timeoutSeconds = value.timeoutSeconds ?? 10;
  if (typeof timeoutSeconds !== 'number' || !Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30)
    throw new Error(`${what}.timeoutSeconds must be between 1 and 30 seconds`);
  return {
    configuration,
    name: value.name,
    clientConfig: clientConfig(value.clientConfig, `${what}.clientConfig`),
    rules: (Array.isArray(value.rules) ? value.rules : []).map((r, i) => rule(r, `${what}.rules[${i}]`)),
    failurePolicy: oneOf(value.failurePolicy, ['Fail', 'Ignore'], 'Fail', `${what}.failurePolicy`),
    matchPolicy: oneOf(value.matchPolicy, ['Exact', 'Equivalent'], 'Equivalent', `${what}.matchPolicy`),
    namespaceSelector: selector(value.namespaceSelector, `${what}.namespaceSelector`),
    objectSelector: selector(value.objectSelector, `${what}.objectSelector`),
    // Required in v1: no default.
    sideEffects: oneOf(value.sideEffects, ['None', 'NoneOnDryRun', 'Some', 'Unknown'], undefined, `${what}.sideEffects`),
    timeoutSeconds,
    reinvocationPolicy: oneOf(value.reinvocationPolicy, ['Never', 'IfNeeded'], 'Never', `${what}.reinvocationPolicy`),
  };
}

/**
 * The webhooks of `objects` (configurations, or Lists of them), in kube's order; throws
 * naming the first configuration that is not a valid one.
 */
export function webhookConfigurations(objects: readonly KubeObject[]): WebhookConfigurations {
  const configurations: { kind: 'mutating' | 'validating'; name: string; webhooks: unknown[] }[] = [];
  const add = (object: KubeObject): void => {
    if (object.kind === 'List' && Array.isArray(object.items)) return (object.items as KubeObject[]).forEach(add);
    const kind = kinds[object.kind as keyof typeof kinds];
    if (object.apiVersion !== apiVersion || kind === undefined)
      throw new Error(`expected ${apiVersion} MutatingWebhookConfiguration or ValidatingWebhookConfiguration, got ${object.apiVersion} ${object.kind}`);
    const name = object.metadata?.name;
    if (!name) throw new Error(`a ${object.kind} needs metadata.name`);
    configurations.push({ kind, name, webhooks: Array.isArray(object.webhooks) ? object.webhooks : [] });
  };
  objects.forEach(add);
  configurations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const of = (kind: 'mutating' | 'validating') =>
    configurations.filter((c) => c.kind === kind).flatMap((c) => c.webhooks.map((w, i) => webhook(c.name, w, `${c.name}.webhooks[${i}]`)));
  return { mutating: of('mutating'), validating: of('validating') };
}

/**
 * The configurations a YAML (or JSON) file holds: documents separated by `---`, each a
 * configuration or a List; throws when one is not a valid configuration.
 */
export function parseWebhookConfigurations(text: string): KubeObject[] {
  const objects = parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length) throw new Error(document.errors[0].message);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return [];
    if (!isPlainObject(value)) throw new Error('every document must be an object');
    return [value];
  });
  webhookConfigurations(objects);
  return objects;
}
