/**
 * The endpoint table: every served `(group, version, resource, subresource)`, with its
 * kind, its scope, its REST object and its verbs, as sample-apiserver's
 * `VersionedResourcesStorageMap` and kube's installer make them. The verbs are derived
 * from what the REST object implements (`verbsOf`). Routing does one lookup in the table;
 * discovery, metrics, RequestInfo's subresource names, the OpenAPI documents' paths and
 * operations (as `apis/`'s `ApiEndpoint`, which openapi/ can import) and the admission
 * webhooks' rules (the versions and kinds equivalent to a request's) enumerate it.
 * Adding a subresource is its declaration in `apis/`, a REST class, and an entry of
 * `installers` below.
 */
import type { ApiEndpoint } from '../apis/api-endpoint.js';
import { servedVersion, type ApiGroup, type ApiResource, type ResourceVersion } from '../apis/api-resource.js';
import type { GroupVersionKind } from '../machinery/meta/group-version-kind.js';
import type { KubeObject, StoredObject } from '../machinery/meta/object.js';
import type { ResourceStorage } from '../storage/interfaces.js';
import { ObjectREST, ResourceREST, restMethodsOf, verbsOf, type EndpointREST } from './endpoint-rest.js';
import { LogREST } from './log-rest.js';
import { historyScope, objectScope, scaleScope, versionValidation, type RequestScope } from './request-scope.js';
import { HistoryREST } from './history-rest.js';
import { revisionListKind } from '../machinery/types/revision-list.js';
import { ScaleREST } from './scale-rest.js';
import { scaleKind } from '../machinery/types/scale.js';
import type { SchemaValidator } from './schema-validator.js';
import type { Store } from './store.js';

/** One served endpoint, as discovery and routing know it before storage is up. */
export interface Endpoint extends ApiEndpoint {
  /** The methods of kube's REST interfaces its REST object implements (`get`, `update`, `open`, …): what routing dispatches on. */
  readonly methods: readonly string[];
  /** Whether its reads stream (a log): kube holds such requests long-running. */
  readonly streams: boolean;
}

/** An endpoint with the scope and REST object the registry made for it at startup. */
export interface ServedEndpoint extends Endpoint {
  readonly scope: RequestScope;
  readonly rest: EndpointREST;
}

/** A resource's stores, shared by its endpoints in every version. */
export interface ResourceStores {
  readonly resource: ApiResource;
  readonly store: Store;
  /** The store with the status strategy, when the resource serves `status`. */
  readonly status?: Store;
  readonly storage: ResourceStorage;
}

/** What an endpoint's scope and REST object are made from. */
interface EndpointParts {
  readonly resource: ApiResource;
  readonly served: ResourceVersion;
  readonly stores: ResourceStores;
  readonly validator: SchemaValidator;
  readonly subresource: string;
}

/** How one kind of endpoint is served: which resources have it, its kind, its REST class, and how both are made. */
interface EndpointInstaller {
  readonly subresource: string;
  readonly aliases?: readonly string[];
  readonly serves: (resource: ApiResource) => boolean;
  /** What its objects are, when not the resource's kind: one kind (a Scale), or a kind of the endpoint's group-version. */
  readonly kind?: GroupVersionKind | ((group: string, version: string) => GroupVersionKind);
  /** The REST class; its methods are the endpoint's verbs. */
  readonly rest: { readonly prototype: object };
  readonly make: (parts: EndpointParts) => { scope: RequestScope; rest: EndpointREST };
}

/** The endpoints a resource may serve, in the order discovery lists them. */
const installers: readonly EndpointInstaller[] = [
  {
    subresource: '',
    serves: () => true,
    rest: ResourceREST,
    make: ({ resource, served, stores, validator }) => ({
      scope: objectScope(resource, served, validator, stores.store.strategy),
      rest: new ResourceREST(stores.store, versionValidation(resource, served, validator, stores.store.strategy)),
    }),
  },
  {
    subresource: 'status',
    serves: (resource) => resource.subresources.status,
    rest: ObjectREST,
    make: ({ resource, served, stores, validator, subresource }) => ({
      scope: objectScope(resource, served, validator, stores.status!.strategy, subresource),
      rest: new ObjectREST(stores.status!, versionValidation(resource, served, validator, stores.status!.strategy)),
    }),
  },
  {
    subresource: 'scale',
    serves: (resource) => resource.subresources.scale !== undefined,
    kind: scaleKind,
    rest: ScaleREST,
    make: ({ resource, served, stores, validator, subresource }) => {
      const scope = scaleScope(resource, served.version, validator, subresource);
      const record = (object: KubeObject, current: StoredObject, manager: string) => scope.fieldManager.update(current, object, manager);
      return { scope, rest: new ScaleREST(stores.store, resource.subresources.scale!, record) };
    },
  },
  {
    subresource: 'log',
    aliases: ['logs'],
    serves: (resource) => resource.subresources.log !== undefined,
    rest: LogREST,
    make: ({ resource, served, stores, validator, subresource }) => ({
      scope: objectScope(resource, served, validator, stores.store.strategy, subresource),
      rest: new LogREST(resource, resource.subresources.log!, stores.storage),
    }),
  },
  {
    subresource: 'history',
    serves: (resource) => resource.subresources.history === true,
    kind: (group, version) => ({ group, version, kind: revisionListKind }),
    rest: HistoryREST,
    make: ({ resource, served, stores, validator, subresource }) => ({
      scope: historyScope(resource, served, validator, stores.store.strategy, subresource),
      rest: new HistoryREST(resource, stores.storage, `${resource.group}/${served.version}`),
    }),
  },
];

/** The kind of `installer`'s objects in `version` of `group`. */
function kindOf(installer: EndpointInstaller, group: string, version: string, resource: ApiResource): GroupVersionKind {
  const kind = installer.kind;
  if (kind === undefined) return { group, version, kind: resource.kind };
  return typeof kind === 'function' ? kind(group, version) : kind;
}

/** Each endpoint of `groups` and the installer that serves it. */
function* installed(groups: readonly ApiGroup[]): Generator<{ endpoint: Endpoint; installer: EndpointInstaller }> {
  for (const group of groups) {
    for (const version of group.versions) {
      for (const resource of group.resources) {
        if (!servedVersion(resource, version)) continue;
        for (const installer of installers) {
          if (!installer.serves(resource)) continue;
          const methods = restMethodsOf(installer.rest.prototype);
          const endpoint: Endpoint = {
            group: group.name,
            version,
            resource,
            subresource: installer.subresource,
            aliases: installer.aliases ?? [],
            kind: kindOf(installer, group.name, version, resource),
            methods,
            verbs: verbsOf(methods),
            streams: methods.includes('open'),
          };
          yield { endpoint, installer };
        }
      }
    }
  }
}

function keyOf(group: string, version: string, resource: string, subresource: string): string {
  return `${group}/${version}/${resource}/${subresource}`;
}

/** The endpoints of some groups, looked up by what a request names. */
export class EndpointTable<E extends Endpoint = Endpoint> {
  /** Every endpoint, in the groups' order, each resource's subresources after it. */
  readonly all: readonly E[];
  readonly #byKey: ReadonlyMap<string, E>;

  constructor(endpoints: readonly E[]) {
    this.all = endpoints;
    this.#byKey = new Map(endpoints.map((e) => [keyOf(e.group, e.version, e.resource.plural, e.subresource), e]));
  }

  /** The endpoint of `resource` (a plural) and `subresource` (`''` for the resource itself, an alias canonicalised), if served. */
  lookup(group: string, version: string, resource: string, subresource: string): E | undefined {
    return this.#byKey.get(keyOf(group, version, resource, subresource));
  }

  /**
   * The endpoints of `resource` and `subresource` in each version `group` serves them, in
   * the group's order: kube's EquivalentResourceMapper, which admission's matchPolicy Equivalent reads.
   */
  equivalents(group: string, resource: string, subresource: string): E[] {
    return this.all.filter((e) => e.group === group && e.resource.plural === resource && e.subresource === subresource);
  }

  /** The endpoints `group` serves in `version`. */
  of(group: string, version: string): E[] {
    return this.all.filter((e) => e.group === group && e.version === version);
  }
}

/** The endpoints `groups` serve, as known before storage is up. */
export function endpointTable(groups: readonly ApiGroup[]): EndpointTable {
  return new EndpointTable([...installed(groups)].map(({ endpoint }) => endpoint));
}

/** Every endpoint of `groups` with its scope and REST object, over the resources' `stores`. */
export function servedEndpoints(
  groups: readonly ApiGroup[],
  stores: (resource: ApiResource) => ResourceStores,
  validator: SchemaValidator,
): EndpointTable<ServedEndpoint> {
  const endpoints = [...installed(groups)].map(({ endpoint, installer }) => {
    const served = servedVersion(endpoint.resource, endpoint.version)!;
    const made = installer.make({ resource: endpoint.resource, served, stores: stores(endpoint.resource), validator, subresource: endpoint.subresource });
    const methods = restMethodsOf(made.rest);
    if (methods.join() !== endpoint.methods.join())
      throw new Error(`${endpoint.resource.plural}/${endpoint.subresource}: its REST object implements ${methods.join()}`);
    return { ...endpoint, ...made };
  });
  return new EndpointTable(endpoints);
}
