/**
 * Turns objects into the representation a client negotiated: the object itself,
 * a meta.k8s.io Table of the resource's printer columns, or PartialObjectMetadata.
 * It is given hub objects, as the REST objects return them, and is the one place they
 * are converted to the request's version, as kube's `transformResponseObject` does
 * before anything else.
 */
import type { ApiResource } from '../../apis/api-resource.js';
import type { KubeObject, ObjectMeta } from '../../machinery/meta/object.js';
import { cacheEncode } from '../../machinery/caching-object.js';
import { partialObjectMetadata, partialObjectMetadataList, type ListMeta } from '../../machinery/types/partial-object-metadata.js';
import { toTable, type IncludeObject, type TableColumn } from '../../machinery/types/table.js';
import type { OutputTarget } from './negotiation.js';

/** What a request's objects are in its version: its columns, and how a hub object is converted to it. */
export interface RequestVersion {
  /** The columns of its objects in a Table. */
  readonly tableColumns: readonly TableColumn[];
  /** A hub object in the request's version (a copy; the object itself in the storage version). */
  readonly fromHub: (object: KubeObject) => KubeObject;
  /**
   * Set when the endpoint's kind is a list of items that are not objects of their own: a
   * Table of it shows a row per item, as kube's table convertor shows a list's, with the
   * metadata each row's PartialObjectMetadata carries.
   */
  readonly tableItems?: TableItems;
}

/** How a Table reads the rows of a kind that is a list. */
export interface TableItems {
  readonly items: (object: KubeObject) => readonly KubeObject[];
  readonly metadata: (item: KubeObject) => ObjectMeta | undefined;
}

/** The representations of one request's objects. */
export class Representation {
  readonly #resource: ApiResource;
  readonly #columns: readonly TableColumn[];
  readonly #apiVersion: string;
  readonly #target: OutputTarget;
  readonly #includeObject: IncludeObject;
  readonly #fromHub: ((object: KubeObject) => KubeObject) | undefined;
  readonly #tableItems: TableItems | undefined;
  #headersSent = false;

  /**
   * `includeObject` is what a Table's rows carry (the request's `includeObject`, read only
   * for a Table); `requestVersion` has the columns (a subresource's own kind's) and the
   * conversion of `version`.
   */
  constructor(resource: ApiResource, version: string, target: OutputTarget, includeObject: () => IncludeObject, requestVersion: RequestVersion) {
    this.#resource = resource;
    this.#columns = requestVersion.tableColumns;
    this.#apiVersion = `${resource.group}/${version}`;
    this.#target = target;
    this.#includeObject = target.transform?.as === 'Table' ? includeObject() : 'Metadata';
    this.#fromHub = version === resource.storageVersion ? undefined : requestVersion.fromHub;
    this.#tableItems = requestVersion.tableItems;
  }

  /** Whether the request's version is the hub's, so that stored objects are what it answers, as they are. */
  get inHubVersion(): boolean {
    return this.#fromHub === undefined;
  }

  /**
   * `object` in the request's version. An object `shared` by every watcher (the watch
   * cache's, frozen) is converted once per version, and the conversion shared
   * (`caching-object.ts`).
   */
  #versioned(object: KubeObject, shared = false): KubeObject {
    const fromHub = this.#fromHub;
    if (fromHub === undefined) return object;
    return shared ? cacheEncode(object, `convert ${this.#apiVersion}`, fromHub) : fromHub(object);
  }

  #table(objects: readonly KubeObject[], listMeta: ListMeta, noHeaders = false, rowMetadata?: TableItems['metadata']) {
    const version = this.#target.transform!.version;
    return toTable(this.#columns, objects, listMeta, { version, includeObject: this.#includeObject, noHeaders, rowMetadata });
  }

  /** One hub object (get, and the result of writes). */
  object(hub: KubeObject): unknown {
    return this.#shown(this.#versioned(hub));
  }

  /** One object of the request's version, in the representation. */
  #shown(object: KubeObject): unknown {
    switch (this.#target.transform?.as) {
      case 'Table': {
        const tableItems = this.#tableItems;
        if (tableItems) return this.#table(tableItems.items(object), object.metadata as ListMeta, false, tableItems.metadata);
        return this.#table([object], { resourceVersion: object.metadata?.resourceVersion });
      }
      case 'PartialObjectMetadata':
        return partialObjectMetadata(object.metadata, this.#target.transform.version);
      default:
        return object;
    }
  }

  /** A list page of hub objects. */
  list(hubItems: readonly KubeObject[], listMeta: ListMeta): unknown {
    const items = hubItems.map((item) => this.#versioned(item));
    switch (this.#target.transform?.as) {
      case 'Table':
        return this.#table(items, listMeta);
      case 'PartialObjectMetadataList':
        return partialObjectMetadataList(items, listMeta, this.#target.transform.version);
      default:
        return { apiVersion: this.#apiVersion, kind: this.#resource.listKind, metadata: listMeta, items };
    }
  }

  /**
   * A list in parts, for a list written a page at a time: its envelope (without items),
   * the field that holds them, and what each page's hub objects become there.
   */
  listParts(listMeta: ListMeta): { envelope: Readonly<Record<string, unknown>>; key: string; items(objects: readonly KubeObject[]): unknown[] } {
    const transform = this.#target.transform;
    switch (transform?.as) {
      case 'Table':
        return {
          envelope: this.#table([], listMeta),
          key: 'rows',
          items: (objects) =>
            this.#table(
              objects.map((o) => this.#versioned(o)),
              listMeta,
            ).rows,
        };
      case 'PartialObjectMetadataList':
        return {
          envelope: partialObjectMetadataList([], listMeta, transform.version),
          key: 'items',
          items: (objects) => objects.map((o) => partialObjectMetadata(this.#versioned(o).metadata, transform.version)),
        };
      default:
        return { envelope: this.list([], listMeta) as Record<string, unknown>, key: 'items', items: (objects) => objects.map((o) => this.#versioned(o)) };
    }
  }

  /**
   * Names what `watchObject` makes of an object when the object alone decides it, so
   * watchers whose representations share the name may share their events' encodings
   * (`WatchEncoder`). A Table has none: its date cells are ages measured when it is
   * made, which a watcher catching up later must not read from an earlier one, and
   * only a watcher's first event carries the column definitions.
   */
  get watchIdentifier(): string | undefined {
    const transform = this.#target.transform;
    if (transform === undefined) return 'object';
    return transform.as === 'Table' ? undefined : `${transform.as}.meta.k8s.io/${transform.version}`;
  }

  /**
   * The object of one watch event, of a hub object (`shared` by every watcher when it is the
   * watch cache's): a one-row Table carries column definitions only in the first event, as kube does.
   */
  watchObject(hub: KubeObject, shared: boolean): unknown {
    const object = this.#versioned(hub, shared);
    if (this.#target.transform?.as !== 'Table') return this.#shown(object);
    const table = this.#table([object], { resourceVersion: object.metadata?.resourceVersion }, this.#headersSent);
    this.#headersSent = true;
    return table;
  }

  /** The object of a BOOKMARK event: only a resourceVersion (and annotations), in the event's representation. */
  bookmark(resourceVersion: string, annotations?: Readonly<Record<string, string>>): unknown {
    const metadata: ObjectMeta = { resourceVersion, ...(annotations ? { annotations: { ...annotations } } : {}) };
    if (this.#target.transform?.as === 'Table') return this.#table([], { resourceVersion }, true);
    if (this.#target.transform) return partialObjectMetadata(metadata, this.#target.transform.version);
    return { kind: this.#resource.kind, apiVersion: this.#apiVersion, metadata };
  }
}
