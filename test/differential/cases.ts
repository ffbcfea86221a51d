/**
 * The differential test's table: every request here is sent to Cairn (cairn.dev) and to
 * kube-apiserver's custom resource of the same Pipelines, each case in a fresh namespace,
 * and the normalized answers must be equal, unless divergences.ts lists the case.
 */
import { webhookLabel } from './environment.js';
import {
  asMetadata,
  asMetadataList,
  asTable,
  create,
  createRaw,
  del,
  get,
  metaOf,
  patch,
  pipeline,
  put,
  type DiffCase,
  type Earlier,
  type Step,
} from './steps.js';

/** Three Pipelines with labels and classes to select by. */
const three: readonly Step[] = [
  create(pipeline('a', { metadata: { labels: { tier: 'front', team: 'x' } } })),
  create(pipeline('b', { metadata: { labels: { tier: 'back', team: 'x' } }, spec: { runnerClassName: 'large' } })),
  create(pipeline('c', { metadata: { labels: { tier: 'back' } } })),
];

/**
 * A consistent list, after writes: both servers answer it once their watch caches hold every
 * write before it (kube's consistent reads from cache, Cairn's), so that a read at
 * resourceVersion 0, served from the cache as it is, sees the writes.
 */
const settled: Step = get();

/** {@link three}, settled. */
const threeSettled: readonly Step[] = [...three, settled];

/** A Pipeline `a` whose status says Running, written through /status. */
const running: readonly Step[] = [
  create('a'),
  put('a/status', (earlier: Earlier) => ({ ...earlier[0].json, status: { phase: 'Running', replicas: 1, selector: 'app=a' } })),
];

/** A Pipeline `a` held by a finalizer of its own. */
const finalized: readonly Step[] = [create(pipeline('a', { metadata: { finalizers: ['example.com/hold'] } }))];

/** A watch that ends by itself after a second, from `resourceVersion` when given. */
const watch = (query = ''): Step => get('', `watch=true&timeoutSeconds=1${query ? `&${query}` : ''}`);

/** The object `a` as the first setup step answered it, changed by `change`. */
const edited =
  (change: (object: any) => void, index = 0) =>
  (earlier: Earlier): unknown => {
    const object = structuredClone(earlier[index].json);
    change(object);
    return object;
  };

const scale = (replicas: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling/v1',
  kind: 'Scale',
  metadata: { name: 'a', ...extra },
  spec: { replicas },
});

const createCases: DiffCase[] = [
  { name: 'create: a minimal Pipeline', request: create('a') },
  { name: 'create: then get it', setup: [create('a')], request: get('a') },
  { name: 'create: with generateName', request: create({ ...pipeline(''), metadata: { generateName: 'gen-' } }) },
  { name: 'create: a name already taken is 409 AlreadyExists', setup: [create('a')], request: create('a') },
  { name: 'create: dryRun=All answers the object and stores nothing', request: create('a', 'dryRun=All'), then: get('a') },
  { name: 'create: dryRun=All with generateName', request: create({ ...pipeline(''), metadata: { generateName: 'gen-' } }, 'dryRun=All') },
  { name: 'create: dryRun=Bogus', request: create('a', 'dryRun=Bogus') },
  { name: 'create: fieldValidation=Bogus', request: create('a', 'fieldValidation=Bogus') },
  { name: 'create: an unknown field under fieldValidation=Strict is 400', request: create(pipeline('a', { spec: { bogus: 1 } }), 'fieldValidation=Strict') },
  {
    name: 'create: an unknown field under fieldValidation=Warn is pruned with a warning',
    request: create(pipeline('a', { spec: { bogus: 1 } }), 'fieldValidation=Warn'),
  },
  {
    name: 'create: an unknown field under fieldValidation=Ignore is pruned silently',
    request: create(pipeline('a', { spec: { bogus: 1 } }), 'fieldValidation=Ignore'),
  },
  { name: 'create: an unknown field without fieldValidation warns (the default is Warn)', request: create(pipeline('a', { spec: { bogus: 1 } })) },
  { name: 'create: an unknown metadata field under Strict', request: create(pipeline('a', { metadata: { bogus: 1 } }), 'fieldValidation=Strict') },
  {
    name: 'create: a duplicate JSON field under Strict is 400',
    request: createRaw(JSON.stringify(pipeline('a')).replace('"spec":{', '"spec":{"replicas":1,"replicas":2,'), { query: 'fieldValidation=Strict' }),
  },
  {
    name: 'create: a duplicate JSON field under Warn warns',
    request: createRaw(JSON.stringify(pipeline('a')).replace('"spec":{', '"spec":{"replicas":1,"replicas":2,'), { query: 'fieldValidation=Warn' }),
  },
  { name: 'create: a name with capitals is 422', request: create('Bad_Name') },
  { name: 'create: a name of 254 characters is 422', request: create('a'.repeat(254)) },
  { name: 'create: neither name nor generateName is 422', request: create({ ...pipeline(''), metadata: {} }) },
  { name: 'create: a body in another namespace is 400', request: create(pipeline('a', { metadata: { namespace: 'elsewhere' } })) },
  { name: 'create: a body naming its own namespace', request: create(pipeline('a', { metadata: { namespace: '{namespace}' } })) },
  { name: 'create: another kind', request: create({ ...pipeline('a'), kind: 'Widget' }) },
  { name: 'create: no kind', request: create({ apiVersion: 'cairn.dev/v1', metadata: { name: 'a' } }) },
  { name: 'create: no apiVersion', request: create({ kind: 'Pipeline', metadata: { name: 'a' } }) },
  { name: 'create: a v1beta1 body sent to v1', request: create({ ...pipeline('a'), apiVersion: 'cairn.dev/v1beta1' }) },
  { name: 'create: another group’s apiVersion is 400', request: create({ ...pipeline('a'), apiVersion: 'apps/v1' }) },
  { name: 'create: malformed JSON is 400', request: createRaw('{"apiVersion": "cairn.dev/v1", "kind": ') },
  { name: 'create: an empty body is 400', request: createRaw('') },
  { name: 'create: a JSON array is 400', request: createRaw('[1, 2]') },
  { name: 'create: a JSON string is 400', request: createRaw('"pipeline"') },
  { name: 'create: Content-Type text/plain is 415', request: create('a', undefined, { contentType: 'text/plain' }) },
  {
    name: 'create: a YAML body',
    request: createRaw('apiVersion: cairn.dev/v1\nkind: Pipeline\nmetadata:\n  name: a\nspec:\n  runnerClassName: standard\n  steps:\n  - name: fetch\n', {
      contentType: 'application/yaml',
    }),
  },
  { name: 'create: Accept application/xml is 406', request: create('a', undefined, { accept: 'application/xml' }) },
  { name: 'create: Accept application/yaml answers YAML', request: create('a', undefined, { accept: 'application/yaml' }) },
  { name: 'create: replicas -1 is 422', request: create(pipeline('a', { spec: { replicas: -1 } })) },
  { name: 'create: replicas as a string is 422', request: create(pipeline('a', { spec: { replicas: 'two' } })) },
  { name: 'create: replicas 1.5 is 422', request: create(pipeline('a', { spec: { replicas: 1.5 } })) },
  { name: 'create: replicas above int32 is 422', request: create(pipeline('a', { spec: { replicas: 2 ** 31 } })) },
  { name: 'create: replicas 0 is kept, not defaulted', request: create(pipeline('a', { spec: { replicas: 0 } })) },
  { name: 'create: a step without a name is 422', request: create(pipeline('a', { spec: { steps: [{ image: 'alpine' }] } })) },
  { name: 'create: a step name of 64 characters is 422', request: create(pipeline('a', { spec: { steps: [{ name: 's'.repeat(64) }] } })) },
  { name: 'create: an empty step name is 422', request: create(pipeline('a', { spec: { steps: [{ name: '' }] } })) },
  { name: 'create: two steps of one name are 422', request: create(pipeline('a', { spec: { steps: [{ name: 's' }, { name: 's' }] } })) },
  {
    name: 'create: two env variables of one name are 422',
    request: create(pipeline('a', { spec: { steps: [{ name: 's', env: [{ name: 'X' }, { name: 'X', value: '1' }] }] } })),
  },
  { name: 'create: steps not a list is 422', request: create(pipeline('a', { spec: { steps: { name: 's' } } })) },
  { name: 'create: spec not an object is 422', request: create({ ...pipeline('a'), spec: 'nothing' }) },
  { name: 'create: null spec fields are dropped', request: create(pipeline('a', { spec: { paused: null, replicas: null } })) },
  { name: 'create: no spec is defaulted', request: create({ apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' } }) },
  { name: 'create: status is dropped (status subresource)', request: create(pipeline('a', { status: { phase: 'Running' } })) },
  { name: 'create: a runnerClassName with a slash', request: create(pipeline('a', { spec: { runnerClassName: 'a/b' } })) },
  { name: 'create: a RunnerClass that does not exist', request: create(pipeline('a', { spec: { runnerClassName: 'missing' } })) },
  { name: 'create: an invalid label key is 422', request: create(pipeline('a', { metadata: { labels: { 'bad key!': 'x' } } })) },
  { name: 'create: an invalid label value is 422', request: create(pipeline('a', { metadata: { labels: { k: 'not valid!' } } })) },
  { name: 'create: a finalizer without a domain', request: create(pipeline('a', { metadata: { finalizers: ['no-slash'] } })) },
  {
    name: 'create: an ownerReference without uid is 422',
    request: create(pipeline('a', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o' }] } })),
  },
  { name: 'create: a resourceVersion in the body', request: create(pipeline('a', { metadata: { resourceVersion: '5' } })) },
  {
    name: 'create: a uid and creationTimestamp in the body are replaced',
    request: create(pipeline('a', { metadata: { uid: 'x', creationTimestamp: '2020-01-01T00:00:00Z' } })),
  },
  { name: 'create: a generation in the body is replaced', request: create(pipeline('a', { metadata: { generation: 7 } })) },
  { name: 'create: a deletionTimestamp in the body is dropped', request: create(pipeline('a', { metadata: { deletionTimestamp: '2020-01-01T00:00:00Z' } })) },
  {
    name: 'create: managedFields in the body are kept',
    request: create(
      pipeline('a', {
        metadata: {
          managedFields: [
            { manager: 'someone', operation: 'Apply', apiVersion: 'cairn.dev/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } },
          ],
        },
        spec: { paused: true },
      }),
    ),
  },
  { name: 'create: fieldManager names the manager', request: create('a', 'fieldManager=me') },
  { name: 'create: a fieldManager of 129 characters is 422', request: create('a', `fieldManager=${'m'.repeat(129)}`) },
  { name: 'create: in v1beta1', request: create({ ...pipeline('a'), apiVersion: 'cairn.dev/v1beta1' }, undefined, { version: 'v1beta1' }) },
  { name: 'create: in a version not served is 404', request: create('a', undefined, { version: 'v2' }) },
  { name: 'create: POST to an object’s path', setup: [create('a')], request: { ...create('b'), path: 'a' } },
];

const readCases: DiffCase[] = [
  { name: 'get: missing is 404', request: get('missing') },
  { name: 'get: resourceVersion=0', setup: [create('a'), settled], request: get('a', 'resourceVersion=0') },
  { name: 'get: resourceVersion of the create', setup: [create('a')], request: get('a', (e) => `resourceVersion=${metaOf('resourceVersion')(e)}`) },
  {
    name: 'get: resourceVersionMatch=Exact at the create, after an update',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } })],
    request: get('a', (e) => `resourceVersion=${metaOf('resourceVersion', 0)(e)}&resourceVersionMatch=Exact`),
  },
  { name: 'get: a name with capitals is 404', request: get('Missing') },
  { name: 'get: as a Table', setup: [create('a')], request: get('a', undefined, { accept: asTable }) },
  { name: 'get: as a Table with includeObject=Object', setup: [create('a')], request: get('a', 'includeObject=Object', { accept: asTable }) },
  { name: 'get: as a Table with includeObject=None', setup: [create('a')], request: get('a', 'includeObject=None', { accept: asTable }) },
  {
    name: 'get: as a Table of meta.k8s.io/v1beta1',
    setup: [create('a')],
    request: get('a', undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' }),
  },
  { name: 'get: as PartialObjectMetadata', setup: [create('a')], request: get('a', undefined, { accept: asMetadata }) },
  { name: 'get: PartialObjectMetadata, else JSON', setup: [create('a')], request: get('a', undefined, { accept: `${asMetadata}, application/json` }) },
  { name: 'get: as YAML', setup: [create('a')], request: get('a', undefined, { accept: 'application/yaml' }) },
  { name: 'get: Accept application/xml is 406', setup: [create('a')], request: get('a', undefined, { accept: 'application/xml' }) },
  { name: 'get: Accept protobuf', setup: [create('a')], request: get('a', undefined, { accept: 'application/vnd.kubernetes.protobuf' }) },
  { name: 'get: in v1beta1', setup: [create('a')], request: get('a', undefined, { version: 'v1beta1' }) },
  { name: 'get: missing in v1alpha1 is 404', request: get('missing', undefined, { version: 'v1alpha1' }) },
  { name: 'get: an unknown subresource', setup: [create('a')], request: get('a/bogus') },
  { name: 'get: a Table of a running Pipeline shows its phase', setup: running, request: get('a', undefined, { accept: asTable }) },
];

const listCases: DiffCase[] = [
  { name: 'list: an empty namespace', request: get() },
  { name: 'list: three Pipelines', setup: three, request: get() },
  { name: 'list: labelSelector tier=back', setup: three, request: get('', 'labelSelector=tier%3Dback') },
  { name: 'list: labelSelector tier in (front)', setup: three, request: get('', 'labelSelector=tier%20in%20(front)') },
  { name: 'list: labelSelector !team', setup: three, request: get('', 'labelSelector=!team') },
  { name: 'list: labelSelector team,tier!=front', setup: three, request: get('', 'labelSelector=team,tier!%3Dfront') },
  { name: 'list: an invalid labelSelector is 400', setup: three, request: get('', 'labelSelector=tier%3D%3D%3Dx') },
  { name: 'list: fieldSelector metadata.name=b', setup: three, request: get('', 'fieldSelector=metadata.name%3Db') },
  { name: 'list: fieldSelector metadata.name!=b', setup: three, request: get('', 'fieldSelector=metadata.name!%3Db') },
  {
    name: 'list: fieldSelector metadata.namespace',
    setup: three,
    request: get('', (e) => `fieldSelector=metadata.namespace%3D${e[0].json.metadata.namespace}`),
  },
  { name: 'list: fieldSelector spec.runnerClassName=large', setup: three, request: get('', 'fieldSelector=spec.runnerClassName%3Dlarge') },
  { name: 'list: fieldSelector status.phase=Running', setup: running, request: get('', 'fieldSelector=status.phase%3DRunning') },
  { name: 'list: fieldSelector on a field not selectable is 400', setup: three, request: get('', 'fieldSelector=spec.replicas%3D1') },
  { name: 'list: a malformed fieldSelector is 400', setup: three, request: get('', 'fieldSelector=metadata.name') },
  { name: 'list: fieldSelector with a set operator is 400', setup: three, request: get('', 'fieldSelector=metadata.name%20in%20(a)') },
  { name: 'list: limit=1 gives a continue token', setup: three, request: get('', 'limit=1') },
  { name: 'list: the next page by continue', setup: [...three, get('', 'limit=1')], request: get('', (e) => `limit=1&continue=${metaOf('continue')(e)}`) },
  {
    name: 'list: the last page by continue',
    setup: [...three, get('', 'limit=2')],
    request: get('', (e) => `limit=2&continue=${metaOf('continue')(e)}`),
  },
  { name: 'list: a malformed continue token is 400', setup: three, request: get('', 'limit=1&continue=bogus') },
  {
    name: 'list: continue with resourceVersion=0',
    setup: [...three, get('', 'limit=1')],
    request: get('', (e) => `continue=${metaOf('continue')(e)}&resourceVersion=0`),
  },
  {
    name: 'list: continue with a resourceVersion is 400',
    setup: [...three, get('', 'limit=1')],
    request: get('', (e) => `continue=${metaOf('continue')(e)}&resourceVersion=${metaOf('resourceVersion', 0)(e)}`),
  },
  { name: 'list: limit=0 lists all', setup: three, request: get('', 'limit=0') },
  { name: 'list: limit=-1', setup: three, request: get('', 'limit=-1') },
  { name: 'list: limit=abc is 400', setup: three, request: get('', 'limit=abc') },
  { name: 'list: resourceVersion=0', setup: threeSettled, request: get('', 'resourceVersion=0') },
  { name: 'list: resourceVersion=0 with limit=1 ignores the limit', setup: threeSettled, request: get('', 'resourceVersion=0&limit=1') },
  { name: 'list: resourceVersionMatch=NotOlderThan at 0', setup: threeSettled, request: get('', 'resourceVersion=0&resourceVersionMatch=NotOlderThan') },
  {
    name: 'list: resourceVersionMatch=Exact at the first create',
    setup: three,
    request: get('', (e) => `resourceVersion=${metaOf('resourceVersion', 0)(e)}&resourceVersionMatch=Exact`),
  },
  { name: 'list: resourceVersionMatch without resourceVersion is 422', setup: three, request: get('', 'resourceVersionMatch=Exact') },
  { name: 'list: resourceVersionMatch=Exact at 0 is 422', setup: three, request: get('', 'resourceVersion=0&resourceVersionMatch=Exact') },
  { name: 'list: resourceVersionMatch=Bogus is 422', setup: three, request: get('', 'resourceVersion=0&resourceVersionMatch=Bogus') },
  { name: 'list: resourceVersion=abc is 400', setup: three, request: get('', 'resourceVersion=abc') },
  { name: 'list: timeoutSeconds=1 does not end a list', setup: three, request: get('', 'timeoutSeconds=1') },
  { name: 'list: as a Table', setup: three, request: get('', undefined, { accept: asTable }) },
  { name: 'list: an empty Table', request: get('', undefined, { accept: asTable }) },
  { name: 'list: a Table page', setup: three, request: get('', 'limit=2', { accept: asTable }) },
  { name: 'list: as PartialObjectMetadataList', setup: three, request: get('', undefined, { accept: asMetadataList }) },
  { name: 'list: an empty PartialObjectMetadataList', request: get('', undefined, { accept: asMetadataList }) },
  { name: 'list: as PartialObjectMetadata (not List) is 406', setup: three, request: get('', undefined, { accept: asMetadata }) },
  { name: 'list: as YAML', setup: three, request: get('', undefined, { accept: 'application/yaml' }) },
  {
    name: 'list: across namespaces, selected by label',
    setup: [create(pipeline('a', { metadata: { labels: { only: 'across-namespaces' } } }))],
    request: get('', 'labelSelector=only%3Dacross-namespaces', { allNamespaces: true }),
  },
  { name: 'list: in v1beta1', setup: three, request: get('', undefined, { version: 'v1beta1' }) },
];

const watchCases: DiffCase[] = [
  { name: 'watch: from resourceVersion=0 lists what exists as ADDED', setup: threeSettled, request: watch('resourceVersion=0') },
  {
    name: 'watch: MODIFIED and DELETED after a resourceVersion',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } }), del('a')],
    request: get('', (e) => `watch=true&timeoutSeconds=1&resourceVersion=${metaOf('resourceVersion', 0)(e)}`),
  },
  {
    name: 'watch: a label selector sees an object leave it as DELETED',
    setup: [create(pipeline('a', { metadata: { labels: { tier: 'front' } } })), patch('a', 'merge', { metadata: { labels: { tier: 'back' } } })],
    request: get('', (e) => `watch=true&timeoutSeconds=1&labelSelector=tier%3Dfront&resourceVersion=${metaOf('resourceVersion', 0)(e)}`),
  },
  {
    name: 'watch: one object by fieldSelector metadata.name',
    setup: [...three, patch('b', 'merge', { spec: { paused: true } })],
    request: get('', (e) => `watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Db&resourceVersion=${metaOf('resourceVersion', 0)(e)}`),
  },
  {
    name: 'watch: sendInitialEvents with bookmarks',
    setup: three,
    request: get('', 'watch=true&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
  },
  {
    name: 'watch: from resourceVersion=0 with allowWatchBookmarks, initial events end with a bookmark',
    setup: threeSettled,
    request: watch('resourceVersion=0&allowWatchBookmarks=true'),
  },
  {
    name: 'watch: sendInitialEvents without allowWatchBookmarks',
    setup: three,
    request: watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan'),
  },
  { name: 'watch: sendInitialEvents without resourceVersionMatch is 422', setup: three, request: watch('sendInitialEvents=true&allowWatchBookmarks=true') },
  { name: 'watch: resourceVersionMatch=Exact is 422', setup: three, request: watch('resourceVersion=0&resourceVersionMatch=Exact') },
  { name: 'watch: as Table events', setup: threeSettled, request: get('', 'watch=true&timeoutSeconds=1&resourceVersion=0', { accept: asTable }) },
  {
    name: 'watch: as PartialObjectMetadata events',
    setup: threeSettled,
    request: get('', 'watch=true&timeoutSeconds=1&resourceVersion=0', { accept: asMetadata }),
  },
  { name: 'watch: resourceVersion=abc', request: watch('resourceVersion=abc') },
  { name: 'watch: an invalid labelSelector is 400', request: watch('labelSelector=tier%3D%3D%3Dx') },
];

const updateCases: DiffCase[] = [
  {
    name: 'update: spec changes and generation moves',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = 3)),
    ),
  },
  {
    name: 'update: labels only, generation stays',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.labels = { x: 'y' })),
    ),
  },
  {
    name: 'update: without resourceVersion',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => {
        delete o.metadata.resourceVersion;
        o.spec.paused = true;
      }),
    ),
  },
  {
    name: 'update: a stale resourceVersion is 409',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } })],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = 2)),
    ),
  },
  { name: 'update: a missing object is 404', request: put('a', pipeline('a')) },
  {
    name: 'update: a body naming another object is 400',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.name = 'b')),
    ),
  },
  {
    name: 'update: a body without a name',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => delete o.metadata.name),
    ),
  },
  {
    name: 'update: a body in another namespace',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.namespace = 'elsewhere')),
    ),
  },
  {
    name: 'update: a changed uid',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.uid = '00000000-0000-0000-0000-000000000000')),
    ),
  },
  {
    name: 'update: status through the main resource is ignored',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.status = { phase: 'Failed' })),
    ),
  },
  {
    name: 'update: replicas -1 is 422',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = -1)),
    ),
  },
  {
    name: 'update: dryRun=All answers and stores nothing',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = 5)),
      'dryRun=All',
    ),
    then: get('a'),
  },
  {
    name: 'update: creationTimestamp cannot change',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.creationTimestamp = '2020-01-01T00:00:00Z')),
    ),
  },
  {
    name: 'update: generateName cannot change what is stored',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.generateName = 'x-')),
    ),
  },
  {
    name: 'update: an unknown field under Strict is 400',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.bogus = true)),
      'fieldValidation=Strict',
    ),
  },
  {
    name: 'update: an unknown field under Warn warns',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.bogus = true)),
      'fieldValidation=Warn',
    ),
  },
  {
    name: 'update: another kind',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.kind = 'Widget')),
    ),
  },
  {
    name: 'update: dryRun=Bogus',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = 2)),
      'dryRun=Bogus',
    ),
  },
  { name: 'update: malformed JSON is 400', setup: [create('a')], request: put('a', '{"kind":') },
  {
    name: 'update: with nothing changed keeps resourceVersion and managedFields',
    setup: [create('a')],
    request: put(
      'a',
      edited(() => undefined),
    ),
  },
  {
    name: 'update: dropping managedFields keeps them',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => delete o.metadata.managedFields),
    ),
  },
  {
    name: 'update: emptying managedFields clears them',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.metadata.managedFields = [])),
    ),
  },
  {
    name: 'update: a second manager gets its own entry',
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.paused = true)),
      'fieldManager=other',
    ),
  },
];

const patchCases: DiffCase[] = [
  { name: 'patch: merge', setup: [create('a')], request: patch('a', 'merge', { spec: { replicas: 2 }, metadata: { labels: { x: 'y' } } }) },
  {
    name: 'patch: merge null removes a field',
    setup: [create(pipeline('a', { metadata: { labels: { x: 'y' } } }))],
    request: patch('a', 'merge', { metadata: { labels: null } }),
  },
  { name: 'patch: merge replaces the steps list whole', setup: [create('a')], request: patch('a', 'merge', { spec: { steps: [{ name: 'build' }] } }) },
  { name: 'patch: merge of a missing object is 404', request: patch('a', 'merge', { spec: { replicas: 2 } }) },
  { name: 'patch: merge, malformed body is 400', setup: [create('a')], request: patch('a', 'merge', '{"spec": ') },
  { name: 'patch: merge, a JSON array is 400', setup: [create('a')], request: patch('a', 'merge', '[]') },
  { name: 'patch: merge to an invalid value is 422', setup: [create('a')], request: patch('a', 'merge', { spec: { replicas: -1 } }) },
  {
    name: 'patch: merge with a stale resourceVersion is 409',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } })],
    request: patch('a', 'merge', (e: Earlier) => ({ metadata: { resourceVersion: metaOf('resourceVersion', 0)(e) } })),
  },
  {
    name: 'patch: merge with the current resourceVersion',
    setup: [create('a')],
    request: patch('a', 'merge', (e: Earlier) => ({ metadata: { resourceVersion: metaOf('resourceVersion', 0)(e) }, spec: { paused: true } })),
  },
  { name: 'patch: merge changing the name', setup: [create('a')], request: patch('a', 'merge', { metadata: { name: 'b' } }) },
  { name: 'patch: merge changing the uid', setup: [create('a')], request: patch('a', 'merge', { metadata: { uid: '00000000-0000-0000-0000-000000000000' } }) },
  {
    name: 'patch: merge with dryRun=All stores nothing',
    setup: [create('a')],
    request: patch('a', 'merge', { spec: { replicas: 4 } }, 'dryRun=All'),
    then: get('a'),
  },
  {
    name: 'patch: merge, unknown field under Strict',
    setup: [create('a')],
    request: patch('a', 'merge', { spec: { bogus: 1 } }, 'fieldValidation=Strict'),
  },
  { name: 'patch: merge, unknown field under Warn warns', setup: [create('a')], request: patch('a', 'merge', { spec: { bogus: 1 } }, 'fieldValidation=Warn') },
  { name: 'patch: merge, fieldValidation=Bogus', setup: [create('a')], request: patch('a', 'merge', { spec: { paused: true } }, 'fieldValidation=Bogus') },
  { name: 'patch: merge, force=true is 422', setup: [create('a')], request: patch('a', 'merge', { spec: { paused: true } }, 'force=true') },
  { name: 'patch: merge of status through the main resource is ignored', setup: [create('a')], request: patch('a', 'merge', { status: { phase: 'Failed' } }) },
  { name: 'patch: merge that changes nothing', setup: [create('a')], request: patch('a', 'merge', {}) },
  { name: 'patch: json add a step', setup: [create('a')], request: patch('a', 'json', [{ op: 'add', path: '/spec/steps/-', value: { name: 'build' } }]) },
  { name: 'patch: json replace replicas', setup: [create('a')], request: patch('a', 'json', [{ op: 'replace', path: '/spec/replicas', value: 7 }]) },
  { name: 'patch: json a failing test op is 422', setup: [create('a')], request: patch('a', 'json', [{ op: 'test', path: '/spec/replicas', value: 9 }]) },
  { name: 'patch: json remove of a missing path is 422', setup: [create('a')], request: patch('a', 'json', [{ op: 'remove', path: '/spec/paused' }]) },
  { name: 'patch: json an unknown op', setup: [create('a')], request: patch('a', 'json', [{ op: 'frobnicate', path: '/spec/replicas', value: 1 }]) },
  { name: 'patch: json not a list is 400', setup: [create('a')], request: patch('a', 'json', { op: 'add' }) },
  {
    name: 'patch: json to an invalid value is 422',
    setup: [create('a')],
    request: patch('a', 'json', [{ op: 'replace', path: '/spec/replicas', value: 'x' }]),
  },
  { name: 'patch: strategic merge', setup: [create('a')], request: patch('a', 'strategic', { spec: { steps: [{ name: 'build' }] } }) },
  { name: 'patch: Content-Type application/json is 415', setup: [create('a')], request: { ...patch('a', 'merge', {}), contentType: 'application/json' } },
  { name: 'patch: in v1beta1', setup: [create('a')], request: patch('a', 'merge', { spec: { replicas: 2 } }, undefined, { version: 'v1beta1' }) },
];

const applyCases: DiffCase[] = [
  { name: 'apply: creates', request: patch('a', 'apply', pipeline('a'), 'fieldManager=applier') },
  { name: 'apply: without fieldManager is 422', request: patch('a', 'apply', pipeline('a')) },
  {
    name: 'apply: the same again changes nothing',
    setup: [patch('a', 'apply', pipeline('a'), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a'), 'fieldManager=applier'),
  },
  {
    name: 'apply: a change by the owner',
    setup: [patch('a', 'apply', pipeline('a'), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a', { spec: { replicas: 3 } }), 'fieldManager=applier'),
  },
  {
    name: 'apply: a conflict with another applier is 409',
    setup: [patch('a', 'apply', pipeline('a', { spec: { replicas: 2 } }), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a', { spec: { replicas: 3 } }), 'fieldManager=other'),
  },
  {
    name: 'apply: a conflict with an updater is 409',
    setup: [create('a'), patch('a', 'merge', { spec: { replicas: 2 } }, 'fieldManager=updater')],
    request: patch('a', 'apply', pipeline('a', { spec: { replicas: 3 } }), 'fieldManager=applier'),
  },
  {
    name: 'apply: force takes the field over',
    setup: [patch('a', 'apply', pipeline('a', { spec: { replicas: 2 } }), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a', { spec: { replicas: 3 } }), 'fieldManager=other&force=true'),
  },
  {
    name: 'apply: a field left out is removed',
    setup: [patch('a', 'apply', pipeline('a', { spec: { paused: true } }), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a'), 'fieldManager=applier'),
  },
  {
    name: 'apply: two appliers own their own steps of the list-map',
    setup: [patch('a', 'apply', pipeline('a'), 'fieldManager=applier')],
    request: patch(
      'a',
      'apply',
      { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' }, spec: { steps: [{ name: 'build' }] } },
      'fieldManager=other',
    ),
  },
  { name: 'apply: malformed YAML is 400', request: patch('a', 'apply', 'metadata: [', 'fieldManager=applier') },
  { name: 'apply: a body naming another object is 400', request: patch('a', 'apply', pipeline('b'), 'fieldManager=applier') },
  { name: 'apply: no kind is 400', request: patch('a', 'apply', { apiVersion: 'cairn.dev/v1', metadata: { name: 'a' } }, 'fieldManager=applier') },
  { name: 'apply: an invalid value is 422', request: patch('a', 'apply', pipeline('a', { spec: { replicas: -1 } }), 'fieldManager=applier') },
  { name: 'apply: dryRun=All creates nothing', request: patch('a', 'apply', pipeline('a'), 'fieldManager=applier&dryRun=All'), then: get('a') },
  {
    name: 'apply: an unknown field under Strict',
    request: patch('a', 'apply', pipeline('a', { spec: { bogus: 1 } }), 'fieldManager=applier&fieldValidation=Strict'),
  },
  {
    name: 'apply: status through the main resource is ignored',
    request: patch('a', 'apply', pipeline('a', { status: { phase: 'Failed' } }), 'fieldManager=applier'),
  },
];

const deleteCases: DiffCase[] = [
  { name: 'delete: answers the object', setup: [create('a')], request: del('a'), then: get('a') },
  { name: 'delete: a missing object is 404', request: del('a') },
  {
    name: 'delete: a uid precondition that holds',
    statusOnly: true,
    setup: [create('a')],
    request: del('a', undefined, (e: Earlier) => ({ preconditions: { uid: metaOf('uid', 0)(e) } })),
  },
  {
    name: 'delete: a uid precondition that fails is 409',
    setup: [create('a')],
    request: del('a', undefined, { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }),
  },
  {
    name: 'delete: a resourceVersion precondition that fails is 409',
    setup: [create('a')],
    request: del('a', undefined, { preconditions: { resourceVersion: '1' } }),
  },
  {
    name: 'delete: a resourceVersion precondition that holds',
    statusOnly: true,
    setup: [create('a')],
    request: del('a', undefined, (e: Earlier) => ({ preconditions: { resourceVersion: metaOf('resourceVersion', 0)(e) } })),
  },
  { name: 'delete: a finalizer keeps the object, deletionTimestamp set', setup: finalized, request: del('a'), then: get('a') },
  { name: 'delete: again while finalizers hold it', setup: [...finalized, del('a')], request: del('a') },
  {
    name: 'delete: removing the last finalizer of a deleting object',
    setup: [...finalized, del('a')],
    request: patch('a', 'merge', { metadata: { finalizers: null } }),
    then: get('a'),
  },
  {
    name: 'delete: a finalizer cannot be added to a deleting object',
    setup: [...finalized, del('a')],
    request: patch('a', 'json', [{ op: 'add', path: '/metadata/finalizers/-', value: 'example.com/more' }]),
  },
  { name: 'delete: graceful deletion and generation', setup: [...finalized, del('a')], request: get('a') },
  { name: 'delete: propagationPolicy=Foreground adds its finalizer', setup: [create('a')], request: del('a', 'propagationPolicy=Foreground'), then: get('a') },
  { name: 'delete: propagationPolicy=Orphan adds its finalizer', setup: [create('a')], request: del('a', 'propagationPolicy=Orphan'), then: get('a') },
  { name: 'delete: propagationPolicy=Background', statusOnly: true, setup: [create('a')], request: del('a', 'propagationPolicy=Background') },
  { name: 'delete: propagationPolicy=Bogus is 422', setup: [create('a')], request: del('a', 'propagationPolicy=Bogus') },
  { name: 'delete: orphanDependents=false with a finalizer', setup: finalized, request: del('a', 'orphanDependents=false') },
  {
    name: 'delete: orphanDependents and propagationPolicy together are 422',
    setup: [create('a')],
    request: del('a', undefined, { orphanDependents: true, propagationPolicy: 'Background' }),
  },
  { name: 'delete: dryRun=All keeps the object', statusOnly: true, setup: [create('a')], request: del('a', 'dryRun=All'), then: get('a') },
  { name: 'delete: dryRun=Bogus', setup: [create('a')], request: del('a', 'dryRun=Bogus') },
  { name: 'delete: gracePeriodSeconds=0', statusOnly: true, setup: [create('a')], request: del('a', 'gracePeriodSeconds=0') },
  { name: 'delete: gracePeriodSeconds=30', setup: finalized, request: del('a', 'gracePeriodSeconds=30') },
  { name: 'delete: gracePeriodSeconds=-1', statusOnly: true, setup: [create('a')], request: del('a', 'gracePeriodSeconds=-1') },
  {
    name: 'delete: a DeleteOptions body',
    statusOnly: true,
    setup: [create('a')],
    request: del('a', undefined, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', propagationPolicy: 'Background' }),
  },
  { name: 'delete: a malformed body', setup: [create('a')], request: del('a', undefined, '{"kind":') },
  { name: 'delete: a body of another kind', setup: [create('a')], request: del('a', undefined, { apiVersion: 'v1', kind: 'Pod' }) },
];

const deleteCollectionCases: DiffCase[] = [
  { name: 'deletecollection: everything', setup: three, request: del(''), then: get() },
  { name: 'deletecollection: by labelSelector', setup: three, request: del('', 'labelSelector=tier%3Dback'), then: get() },
  { name: 'deletecollection: by fieldSelector', setup: three, request: del('', 'fieldSelector=metadata.name%3Da'), then: get() },
  { name: 'deletecollection: nothing matches', setup: three, request: del('', 'labelSelector=tier%3Dnone') },
  { name: 'deletecollection: dryRun=All', setup: three, request: del('', 'dryRun=All'), then: get() },
  { name: 'deletecollection: finalizers keep their objects', setup: [...finalized, create('b')], request: del(''), then: get() },
  { name: 'deletecollection: an invalid labelSelector is 400', setup: three, request: del('', 'labelSelector=tier%3D%3D%3Dx') },
];

const statusCases: DiffCase[] = [
  { name: 'status: get', setup: running, request: get('a/status') },
  { name: 'status: get of a missing object is 404', request: get('a/status') },
  {
    name: 'status: put changes status, not spec',
    setup: [create('a')],
    request: put(
      'a/status',
      edited((o) => ((o.status = { phase: 'Running' }), (o.spec.replicas = 9))),
    ),
  },
  {
    name: 'status: put with a stale resourceVersion is 409',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } })],
    request: put(
      'a/status',
      edited((o) => (o.status = { phase: 'Running' })),
    ),
  },
  {
    name: 'status: put of an invalid phase is 422',
    setup: [create('a')],
    request: put(
      'a/status',
      edited((o) => (o.status = { phase: 'Bogus' })),
    ),
  },
  {
    name: 'status: put of duplicate condition types is 422',
    setup: [create('a')],
    request: put(
      'a/status',
      edited(
        (o) =>
          (o.status = {
            conditions: [
              { type: 'Ready', status: 'True' },
              { type: 'Ready', status: 'False' },
            ],
          }),
      ),
    ),
  },
  { name: 'status: merge patch', setup: [create('a')], request: patch('a/status', 'merge', { status: { phase: 'Paused', readyReplicas: 0 } }) },
  { name: 'status: merge patch of spec is ignored', setup: [create('a')], request: patch('a/status', 'merge', { spec: { replicas: 5 } }) },
  { name: 'status: json patch', setup: [create('a')], request: patch('a/status', 'json', [{ op: 'add', path: '/status', value: { phase: 'Failed' } }]) },
  {
    name: 'status: apply',
    setup: [create('a')],
    request: patch(
      'a/status',
      'apply',
      { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' }, status: { phase: 'Running' } },
      'fieldManager=controller',
    ),
  },
  {
    name: 'status: apply to a missing object is 404',
    request: patch(
      'a/status',
      'apply',
      { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: 'a' }, status: { phase: 'Running' } },
      'fieldManager=controller',
    ),
  },
  {
    name: 'status: put does not move generation',
    setup: [create('a')],
    request: put(
      'a/status',
      edited((o) => (o.status = { observedGeneration: 1 })),
    ),
    then: get('a'),
  },
  { name: 'status: merge patch of a missing object is 404', request: patch('a/status', 'merge', { status: { phase: 'Paused' } }) },
];

const scaleCases: DiffCase[] = [
  { name: 'scale: get', setup: running, request: get('a/scale') },
  { name: 'scale: get of a missing object is 404', request: get('a/scale') },
  { name: 'scale: put', setup: [create('a')], request: put('a/scale', scale(3)), then: get('a') },
  {
    name: 'scale: put with a stale resourceVersion is 409',
    setup: [create('a'), patch('a', 'merge', { spec: { paused: true } })],
    request: put('a/scale', (e: Earlier) => scale(3, { resourceVersion: metaOf('resourceVersion', 0)(e) })),
  },
  { name: 'scale: put of -1 replicas is 422', setup: [create('a')], request: put('a/scale', scale(-1)) },
  { name: 'scale: put of another kind', setup: [create('a')], request: put('a/scale', { ...scale(3), kind: 'Pipeline' }) },
  { name: 'scale: put naming another object is 400', setup: [create('a')], request: put('a/scale', { ...scale(3), metadata: { name: 'b' } }) },
  { name: 'scale: put to a missing object is 404', request: put('a/scale', scale(3)) },
  { name: 'scale: merge patch', setup: [create('a')], request: patch('a/scale', 'merge', { spec: { replicas: 4 } }) },
  { name: 'scale: json patch', setup: [create('a')], request: patch('a/scale', 'json', [{ op: 'replace', path: '/spec/replicas', value: 5 }]) },
  { name: 'scale: merge patch of replicas as a string', setup: [create('a')], request: patch('a/scale', 'merge', { spec: { replicas: 'x' } }) },
  { name: 'scale: apply', setup: [create('a')], request: patch('a/scale', 'apply', scale(6), 'fieldManager=scaler&force=true') },
  { name: 'scale: as a Table', setup: running, request: get('a/scale', undefined, { accept: asTable }) },
  { name: 'scale: in v1beta1', setup: running, request: get('a/scale', undefined, { version: 'v1beta1' }) },
];

const methodCases: DiffCase[] = [
  { name: 'method: PATCH of the collection', request: patch('', 'merge', {}) },
  { name: 'method: PUT of the collection', request: put('', pipeline('a')) },
  { name: 'method: a version not served is 404', request: get('', undefined, { version: 'v2' }) },
];

/** The webhook adds a label; who owns it in managedFields shows whether the field manager ran before mutating admission, as in kube. */
const webhookCases: DiffCase[] = [
  { name: 'webhook: create', webhook: true, request: create('a') },
  { name: 'webhook: create with labels', webhook: true, request: create(pipeline('a', { metadata: { labels: { team: 'x' } } })) },
  {
    name: 'webhook: update',
    webhook: true,
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => (o.spec.replicas = 2)),
    ),
  },
  {
    name: 'webhook: update removing the label',
    webhook: true,
    setup: [create('a')],
    request: put(
      'a',
      edited((o) => delete o.metadata.labels[webhookLabel.key]),
    ),
  },
  { name: 'webhook: merge patch', webhook: true, setup: [create('a')], request: patch('a', 'merge', { spec: { replicas: 2 } }) },
  { name: 'webhook: json patch', webhook: true, setup: [create('a')], request: patch('a', 'json', [{ op: 'replace', path: '/spec/replicas', value: 2 }]) },
  { name: 'webhook: strategic merge patch', webhook: true, setup: [create('a')], request: patch('a', 'strategic', { spec: { replicas: 2 } }) },
  { name: 'webhook: apply creating', webhook: true, request: patch('a', 'apply', pipeline('a'), 'fieldManager=applier') },
  {
    name: 'webhook: apply updating',
    webhook: true,
    setup: [patch('a', 'apply', pipeline('a'), 'fieldManager=applier')],
    request: patch('a', 'apply', pipeline('a', { spec: { replicas: 2 } }), 'fieldManager=applier'),
  },
  {
    name: 'webhook: status put (not sent to the webhook)',
    webhook: true,
    setup: [create('a')],
    request: put(
      'a/status',
      edited((o) => (o.status = { phase: 'Running' })),
    ),
  },
];

/** Every case, in the order they are reported. */
export const cases: readonly DiffCase[] = [
  ...createCases,
  ...readCases,
  ...listCases,
  ...watchCases,
  ...updateCases,
  ...patchCases,
  ...applyCases,
  ...deleteCases,
  ...deleteCollectionCases,
  ...statusCases,
  ...scaleCases,
  ...methodCases,
  ...webhookCases,
];
