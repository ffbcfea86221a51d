/**
 * The OpenAPI v3 documents: the root listing each group-version, and one document
 * per group-version built from the same schemas that validate requests. Its paths are
 * the served endpoints (the registry's endpoint table), each with the operations of the
 * verbs it serves, so a document never promises what is not served. kubectl reads the PATCH operation's `fieldValidation` parameter and request content types
 * to decide how to validate and patch.
 */
import { createHash } from 'node:crypto';
import { appendLogMediaTypes, type ApiGroup, type ApiResource, type LogSubresource } from '../apis/api-resource.js';
import { patchContentTypes, patchTypes } from '../machinery/patch/patch.js';
import { scaleKind, scaleSchemaName } from '../machinery/types/scale.js';
import { revisionListKind, revisionSchemaNames } from '../machinery/types/revision-list.js';
import type { ApiEndpoint } from '../apis/api-endpoint.js';
import { metaSchemaNames } from '../machinery/types/meta-schemas.js';
import { componentRefPrefix, type JsonSchema } from '../machinery/json-schema.js';
import { componentSchemas } from '../apis/component-schemas.js';

/** A query or path parameter of an operation. */
export interface ParameterObject {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: { readonly type: 'string' | 'integer' | 'boolean'; readonly uniqueItems: boolean };
}

/** Request or response content, by media type. */
export type ContentObject = Readonly<Record<string, { readonly schema: JsonSchema }>>;

/** An operation, with kube's `x-kubernetes-action` and object-form GVK. */
export interface OperationObject {
  readonly tags: readonly string[];
  readonly description: string;
  readonly operationId: string;
  readonly parameters?: readonly ParameterObject[];
  readonly requestBody?: { readonly required?: boolean; readonly content: ContentObject };
  readonly responses: Readonly<Record<string, { readonly description: string; readonly content?: ContentObject }>>;
  readonly 'x-kubernetes-action': string;
  readonly 'x-kubernetes-group-version-kind': { readonly group: string; readonly version: string; readonly kind: string };
}

/** The HTTP methods Cairn's paths serve, in the order kube's documents list them. */
export const operationMethods = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A path item: its operations and the parameters they share. */
export type PathItemObject = { readonly parameters?: readonly ParameterObject[] } & {
  readonly [method in (typeof operationMethods)[number]]?: OperationObject;
};

/** An OpenAPI v3 document of one group-version. */
export interface OpenApiV3Document {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Readonly<Record<string, PathItemObject>>;
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> };
}

const schemaRef = (name: string): JsonSchema => ({ $ref: `${componentRefPrefix}${name}` });
const queryParam = (name: string, description: string, type: 'string' | 'integer' | 'boolean' = 'string'): ParameterObject => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});
const pathParam = (name: string, description: string): ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', uniqueItems: true },
});

const p = {
  pretty: queryParam('pretty', "If 'true', then the output is pretty printed."),
  dryRun: queryParam('dryRun', 'When present, indicates that modifications should not be persisted. The only valid value is All.'),
  fieldManager: queryParam('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  fieldValidation: queryParam(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default), Strict.',
  ),
  allowWatchBookmarks: queryParam(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Clients should not assume bookmarks are returned at any specific interval. If this is not a watch, this field is ignored.',
    'boolean',
  ),
  continue: queryParam(
    'continue',
    'The continue option should be set when retrieving more results from the server: the continue value of a previous list result with identical query parameters. An expired continue value is answered with 410 ResourceExpired.',
  ),
  labelSelector: queryParam('labelSelector', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  fieldSelector: queryParam('fieldSelector', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  limit: queryParam(
    'limit',
    'limit is a maximum number of responses to return for a list call. If more items exist, the server sets the `continue` field on the list metadata to a value that retrieves the next set of results.',
    'integer',
  ),
  resourceVersion: queryParam('resourceVersion', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  resourceVersionMatch: queryParam('resourceVersionMatch', 'resourceVersionMatch determines how resourceVersion is applied to list calls: NotOlderThan or Exact. Defaults to unset.'),
  getResourceVersionMatch: queryParam(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to a get: with Exact, the object as it was at exactly that resourceVersion, for any resourceVersion inside the retained history (404 when there was none then, 410 Expired when older than the history); NotOlderThan or unset, at least as new. Forbidden without resourceVersion, and Exact with "0".',
  ),
  sendInitialEvents: queryParam(
    'sendInitialEvents',
    '`sendInitialEvents=true` may be set together with `watch=true`: the watch stream then begins with synthetic events for the current state of the collection, followed by a "Bookmark" event annotated "k8s.io/initial-events-end": "true".',
    'boolean',
  ),
  timeoutSeconds: queryParam('timeoutSeconds', 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.', 'integer'),
  propagationPolicy: queryParam(
    'propagationPolicy',
    "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background' (the default) and 'Foreground'.",
  ),
  orphanDependents: queryParam('orphanDependents', 'Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.', 'boolean'),
  watch: queryParam('watch', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.', 'boolean'),
  namespace: pathParam('namespace', 'object name and auth scope, such as for teams and projects'),
  name: (kind: string) => pathParam('name', `name of the ${kind}`),
};

// As kube-apiserver describes its built-in kinds: protobuf beside JSON and YAML (a CustomResourceDefinition's kinds have none).
const objectMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const watchMediaTypes = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const objectContent = (schema: JsonSchema, types = objectMediaTypes): ContentObject => Object.fromEntries(types.map((type) => [type, { schema }]));
const ok = (schema: JsonSchema, description = 'OK', types = objectMediaTypes) => ({ description, content: objectContent(schema, types) });
const unauthorized = { description: 'Unauthorized' };

const capitalized = (name: string): string => name.slice(0, 1).toUpperCase() + name.slice(1);

function operationId(verb: string, resource: ApiResource, version: string, namespaced: boolean): string {
  const group = resource.group.split('.').map((s) => s[0].toUpperCase() + s.slice(1)).join('');
  const scope = namespaced ? 'Namespaced' : '';
  return `${verb}${group}${version[0].toUpperCase()}${version.slice(1)}${scope}${resource.kind}`;
}

/** The `history` subresource's GET: a RevisionList of the object's revisions, newest first, a page at a time. */
function historyPathItem(resource: ApiResource, endpoint: ApiEndpoint, common: OperationBuilder, parameters: readonly ParameterObject[]): PathItemObject {
  const id = `${operationId('read', resource, endpoint.version, resource.namespaced)}History`;
  const schema = schemaRef(revisionSchemaNames(resource.group, endpoint.version).list);
  return {
    get: {
      ...common('get', id, {
        description: `read the retained revisions of the specified ${resource.kind}, newest first: each with the write that made it and the object as it left it`,
        parameters: [
          p.continue,
          p.limit,
          queryParam('uid', `Only the revisions of the ${resource.kind} with this uid: one incarnation of a name deleted and created again.`),
        ],
        responses: { 200: ok(schema), 401: unauthorized },
      }),
      'x-kubernetes-group-version-kind': endpoint.kind,
    },
    parameters,
  };
}

/** Builds an operation of a resource's path, tagged with its group-version and kind. */
type OperationBuilder = (action: string, id: string, extra: Pick<OperationObject, 'description' | 'parameters' | 'requestBody' | 'responses'>) => OperationObject;

/** The query parameters of kube's PodLogOptions that a log read takes, in kube's order. */
const logReadParams = [
  queryParam('follow', 'Follow the log: keep the response open and send lines as they are appended, until the object is deleted. Defaults to false.', 'boolean'),
  queryParam(
    'limitBytes',
    'If set, the number of bytes to read from the server before terminating the log output. This may not display a complete final line of logging.',
    'integer',
  ),
  queryParam(
    'sinceSeconds',
    'A relative time in seconds before the current time from which to show logs. Only one of sinceSeconds or sinceTime may be specified.',
    'integer',
  ),
  queryParam('sinceTime', 'An RFC3339 timestamp from which to show logs. Only one of sinceSeconds or sinceTime may be specified.'),
  queryParam('tailLines', 'If set, the number of lines from the end of the logs to show.', 'integer'),
  queryParam('timestamps', 'If true, add an RFC3339Nano timestamp at the beginning of every line of log output. Defaults to false.', 'boolean'),
];

/** The `log` subresource: GET streams text/plain with kube's log options; POST appends lines and answers a Success Status. */
function logPathItem(resource: ApiResource, log: LogSubresource, version: string, common: OperationBuilder, parameters: readonly ParameterObject[]): PathItemObject {
  const field = log.streamParameter;
  const id = (verb: string) => `${operationId(verb, resource, version, resource.namespaced)}Log`;
  const bodies: Record<(typeof appendLogMediaTypes)[number], JsonSchema> = {
    'application/json': {
      type: 'object',
      description: `Lines to append to the log of a ${resource.kind}.`,
      required: [field, 'lines'],
      properties: {
        [field]: { type: 'string', description: `The ${field} the lines belong to.` },
        lines: { type: 'array', items: { type: 'string' }, description: 'The lines, in order, each without a line break.' },
      },
    },
    'text/plain': { type: 'string', description: `Lines to append, one per line break; the ${field} query parameter names their ${field}.` },
  };
  return {
    get: common('get', id('read'), {
      description: `read the log of the specified ${resource.kind}`,
      parameters: [...logReadParams, queryParam(field, `Only the lines of this ${field}; every ${field}'s, in the order they were appended, when unset.`)],
      responses: { 200: { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } }, 401: unauthorized },
    }),
    post: common('post', id('create'), {
      description: `append lines to the log of the specified ${resource.kind}`,
      parameters: [queryParam(field, `The ${field} the lines of a text/plain body belong to.`)],
      requestBody: { required: true, content: Object.fromEntries(appendLogMediaTypes.map((type) => [type, { schema: bodies[type] }])) },
      responses: { 201: { description: 'Created', content: { 'application/json': { schema: schemaRef(metaSchemaNames.status) } } }, 401: unauthorized },
    }),
    parameters,
  };
}

/** The verb an operation's `x-kubernetes-action` serves (kube's actions name the HTTP method where the verb is `create` or `update`). */
const verbOfAction: Readonly<Record<string, string>> = { post: 'create', put: 'update' };

/** `item` with only the operations `verbs` serve; undefined when none is left. */
function servedOperations(item: PathItemObject, verbs: readonly string[]): PathItemObject | undefined {
  const served = Object.entries(item).filter(([key, value]) => {
    if (key === 'parameters') return true;
    const action = (value as OperationObject)['x-kubernetes-action'];
    return verbs.includes(verbOfAction[action] ?? action);
  });
  return served.some(([key]) => key !== 'parameters') ? Object.fromEntries(served) : undefined;
}

/** The paths of a resource's endpoints in one version (the resource's own first), each with the operations of the verbs it serves. */
function operations(resource: ApiResource, version: string, schemaName: string, endpoints: readonly ApiEndpoint[]): Record<string, PathItemObject> {
  const gvk = { group: resource.group, version, kind: resource.kind };
  const listSchema = `${schemaName}List`;
  const base = `/apis/${resource.group}/${version}`;
  const scoped = resource.namespaced ? `${base}/namespaces/{namespace}/${resource.plural}` : `${base}/${resource.plural}`;
  const scopeParams = resource.namespaced ? [p.namespace] : [];
  const common: OperationBuilder = (action, id, extra) => ({
    tags: [`${resource.group}_${version}`],
    operationId: id,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const list = (namespaced: boolean): OperationObject =>
    common('list', operationId('list', resource, version, namespaced), {
      description: `list or watch objects of kind ${resource.kind}`,
      parameters: [
        p.allowWatchBookmarks,
        p.continue,
        p.fieldSelector,
        p.labelSelector,
        p.limit,
        p.resourceVersion,
        p.resourceVersionMatch,
        p.sendInitialEvents,
        p.timeoutSeconds,
        p.watch,
      ],
      responses: { 200: ok(schemaRef(listSchema), 'OK', [...objectMediaTypes, ...watchMediaTypes]), 401: unauthorized },
    });
  const writeParams = [p.dryRun, p.fieldManager, p.fieldValidation];
  // get, put and patch of the object, or of one of its subresources: its status, or its Scale.
  const objectOperations = ({ subresource, kind }: Pick<ApiEndpoint, 'subresource' | 'kind'>): PathItemObject => {
    const of = subresource ? `${subresource} of ` : '';
    const id = (verb: string) => `${operationId(verb, resource, version, resource.namespaced)}${capitalized(subresource)}`;
    const scale = kind.group === scaleKind.group && kind.kind === scaleKind.kind;
    const schema = schemaRef(scale ? scaleSchemaName : schemaName);
    const operation = (action: string, verb: string, extra: Pick<OperationObject, 'description' | 'parameters' | 'requestBody'>): OperationObject => ({
      ...common(action, id(verb), { ...extra, responses: { 200: ok(schema), 401: unauthorized } }),
      'x-kubernetes-group-version-kind': kind,
    });
    // Every patch type the server applies: kubectl picks strategic merge for apply only when it is listed here. A Scale takes no apply.
    const patchContent = scale ? Object.values(patchTypes) : patchContentTypes;
    return {
      get: operation('get', 'read', { description: `read ${of}the specified ${resource.kind}`, parameters: [p.resourceVersion, p.getResourceVersionMatch] }),
      put: operation('put', 'replace', {
        description: `replace ${of}the specified ${resource.kind}`,
        parameters: writeParams,
        requestBody: { required: true, content: objectContent(schema) },
      }),
      patch: operation('patch', 'patch', {
        description: `partially update ${of}the specified ${resource.kind}`,
        parameters: writeParams,
        requestBody: { required: true, content: Object.fromEntries(patchContent.map((type) => [type, { schema: schemaRef(metaSchemaNames.patch) }])) },
      }),
    };
  };
  const objectParams = [p.name(resource.kind), ...scopeParams, p.pretty];
  const paths: Record<string, PathItemObject> = {};
  const add = (path: string, item: PathItemObject, verbs: readonly string[]) => {
    const served = servedOperations(item, verbs);
    if (served) paths[path] = served;
  };
  for (const endpoint of endpoints) {
    if (endpoint.subresource === '') {
      add(
        scoped,
        {
          get: list(resource.namespaced),
          post: common('post', operationId('create', resource, version, resource.namespaced), {
            description: `create a ${resource.kind}`,
            parameters: writeParams,
            requestBody: { required: true, content: objectContent(schemaRef(schemaName)) },
            responses: { 200: ok(schemaRef(schemaName)), 201: ok(schemaRef(schemaName), 'Created'), 401: unauthorized },
          }),
          delete: common('deletecollection', operationId('deleteCollection', resource, version, resource.namespaced), {
            description: `delete collection of ${resource.kind}`,
            parameters: [p.dryRun, p.fieldSelector, p.labelSelector, p.orphanDependents, p.propagationPolicy],
            requestBody: { content: { 'application/json': { schema: schemaRef(metaSchemaNames.deleteOptions) } } },
            responses: { 200: ok(schemaRef(metaSchemaNames.status)), 401: unauthorized },
          }),
          parameters: [...scopeParams, p.pretty],
        },
        endpoint.verbs,
      );
      add(
        `${scoped}/{name}`,
        {
          ...objectOperations(endpoint),
          delete: common('delete', operationId('delete', resource, version, resource.namespaced), {
            description: `delete a ${resource.kind}`,
            parameters: [p.dryRun, p.orphanDependents, p.propagationPolicy],
            requestBody: { content: { 'application/json': { schema: schemaRef(metaSchemaNames.deleteOptions) } } },
            responses: { 200: ok(schemaRef(schemaName)), 401: unauthorized },
          }),
          parameters: objectParams,
        },
        endpoint.verbs,
      );
    } else if (resource.subresources.log && endpoint.subresource === 'log') {
      // Only under its name: an alias (`logs`) would repeat every operationId.
      add(`${scoped}/{name}/log`, logPathItem(resource, resource.subresources.log, version, common, objectParams), endpoint.verbs);
    } else if (endpoint.kind.kind === revisionListKind) {
      add(`${scoped}/{name}/${endpoint.subresource}`, historyPathItem(resource, endpoint, common, objectParams), endpoint.verbs);
    } else {
      add(`${scoped}/{name}/${endpoint.subresource}`, { ...objectOperations(endpoint), parameters: objectParams }, endpoint.verbs);
    }
  }
  const own = endpoints.find((e) => e.subresource === '');
  if (resource.namespaced && own) add(`${base}/${resource.plural}`, { get: list(false), parameters: [p.pretty] }, own.verbs);
  return paths;
}

function listSchemaOf(resource: ApiResource, version: string, schemaName: string): JsonSchema {
  return {
    type: 'object',
    description: `${resource.listKind} is a list of ${resource.kind}`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      items: { type: 'array', items: schemaRef(schemaName), description: `List of ${resource.plural}.` },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { allOf: [schemaRef(metaSchemaNames.listMeta)], description: 'Standard list metadata.' },
    },
    'x-kubernetes-group-version-kind': [{ group: resource.group, version, kind: resource.listKind }],
  };
}

/** The OpenAPI v3 document of one group-version, with the paths and operations of its served `endpoints`. */
export function groupVersionDocument(group: ApiGroup, version: string, endpoints: readonly ApiEndpoint[]): OpenApiV3Document {
  const components = componentSchemas([group]);
  const paths: Record<string, PathItemObject> = {};
  for (const resource of group.resources) {
    const served = resource.versions.find((v) => v.version === version);
    if (!served) continue;
    const own = endpoints.filter((e) => e.group === group.name && e.version === version && e.resource === resource);
    Object.assign(paths, operations(resource, version, served.schemaName, own));
    components[`${served.schemaName}List`] = listSchemaOf(resource, version, served.schemaName);
  }
  const schemas = Object.fromEntries(
    Object.entries(components).filter(([name]) => name.startsWith('io.k8s.') || name.includes(`.${version}.`)),
  );
  return {
    openapi: '3.0.0',
    info: { title: 'Cairn', version: `${group.name}/${version}` },
    paths,
    components: { schemas },
  };
}

/** Content hash of a document, as kube-apiserver puts in `serverRelativeURL`. */
export function documentHash(document: object): string {
  return createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase().slice(0, 128);
}

/** The OpenAPI v3 root (`/openapi/v3`). */
export function openApiRoot(documents: ReadonlyMap<string, { readonly hash: string }>): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [path, { hash }] of documents) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  return { paths };
}
