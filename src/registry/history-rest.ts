/**
 * The `history` subresource: an object's retained revisions, newest first, a page at a
 * time, as a RevisionList of the request's group-version (the scope converts each
 * revision's object from the hub, as every read's). Storage keeps the revisions of a
 * deleted object too, so a name deleted within the retention still has its history; a
 * name with none retained is 404, as the object is.
 */
import type { ApiResource } from '../apis/api-resource.js';
import { expired, notFound, type GroupResource } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta/object.js';
import { revisionListKind, type RevisionItem, type RevisionList } from '../machinery/types/revision-list.js';
import type { ResourceStorage, Revision } from '../storage/interfaces.js';
import type { GetterWithOptions } from './endpoint-rest.js';
import { encodeHistoryContinue, historyOptions } from './history-options.js';
import { interpretStorageError } from './interpret-storage-error.js';
import type { ObjectKey } from './store.js';

/** RFC 3339 with the fraction Go's RFC3339Nano writes: trailing zeros dropped (none for a whole second), as protobuf's Time reads back. */
function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.?0+Z$/, 'Z');
}

/** A revision as the RevisionList shows it; its object still the hub's. */
function itemOf(revision: Revision): RevisionItem {
  const origin = revision.origin;
  return {
    resourceVersion: revision.resourceVersion,
    time: rfc3339(revision.time),
    operation: origin?.operation ?? '',
    subresource: origin?.subresource ?? '',
    fieldManager: origin?.fieldManager ?? '',
    user: origin?.user ?? '',
    object: revision.object,
  };
}

/** Reads the history of one resource's objects. */
export class HistoryREST implements GetterWithOptions {
  readonly #storage: ResourceStorage;
  readonly #gr: GroupResource;
  readonly #apiVersion: string;

  /** `apiVersion`: the group-version the endpoint answers in. */
  constructor(resource: ApiResource, storage: ResourceStorage, apiVersion: string) {
    this.#storage = storage;
    this.#gr = { group: resource.group, resource: resource.plural };
    this.#apiVersion = apiVersion;
  }

  /** A page of the revisions of the object at `key`; the query's `limit`, `continue` and `uid` select it. */
  async getWithOptions(key: ObjectKey, parameters: URLSearchParams): Promise<KubeObject> {
    const options = historyOptions(parameters);
    let page;
    try {
      page = await this.#storage.history(key, {
        limit: options.limit,
        ...(options.before === undefined ? {} : { before: options.before }),
        ...(options.uid === undefined ? {} : { uid: options.uid }),
      });
    } catch (error) {
      throw interpretStorageError(error, this.#gr, key.name);
    }
    // The revisions a token continues before were compacted since its page: what followed is gone, as a list's expired continue.
    if (options.before !== undefined && BigInt(options.before) <= BigInt(page.compacted)) {
      throw expired('The provided continue parameter is too old: the revisions it continues to were compacted. Read the history again without it.');
    }
    if (options.before === undefined && page.revisions.length === 0) throw notFound(this.#gr, key.name);
    const list: RevisionList = {
      apiVersion: this.#apiVersion,
      kind: revisionListKind,
      metadata: {
        resourceVersion: page.resourceVersion,
        ...(page.continueBefore === undefined ? {} : { continue: encodeHistoryContinue(page.continueBefore) }),
      },
      items: page.revisions.map(itemOf),
    };
    return list as unknown as KubeObject;
  }
}
