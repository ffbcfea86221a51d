/**
 * The field manager of one endpoint, as kube's handlers hold one in their request
 * scope: it records who owns which fields on every write (an `Update` entry) and
 * merges server-side apply configurations (an `Apply` entry), with the fields the
 * endpoint's strategy resets owned by nobody through it. It is given hub objects and
 * compares them in its endpoint's version, as kube's FieldManager converts with its
 * version converter: ownership is of the fields the client wrote.
 */
import { applyPatch } from '../machinery/managed-fields/apply.js';
import { fieldPath } from '../machinery/managed-fields/field-path.js';
import { FieldSet } from '../machinery/managed-fields/field-set.js';
import { withManagedFields, type VersionConverter } from '../machinery/managed-fields/managed-fields.js';
import { updateManagedFields } from '../machinery/managed-fields/update.js';
import { badRequest } from '../machinery/errors.js';
import { formatGroupVersionKind, groupVersionKindOf } from '../machinery/meta/group-version-kind.js';
import type { JsonSchema, SchemaResolver } from '../machinery/json-schema.js';
import { isPlainObject, type KubeObject } from '../machinery/meta/object.js';
import { now } from '../machinery/meta/time.js';

/** Where a field manager records ownership. */
export interface FieldManagerOptions {
  /** The schema of the objects it sees, and the resolver of its references. */
  readonly schema: JsonSchema;
  readonly resolve: SchemaResolver;
  /** The apiVersion its entries are recorded in (`cairn.dev/v1`). */
  readonly apiVersion: string;
  /** The kind of the objects it sees, which an applied configuration must name. */
  readonly kind: string;
  /** The subresource written through (`status`, `scale`), if any. */
  readonly subresource?: string;
  /** The top-level fields the endpoint resets (`status` on the main resource). */
  readonly resetFields: readonly string[];
  /**
   * The kind's other served versions, so that each manager's fields are compared in
   * the apiVersion it wrote them in; without it, every entry is read as `apiVersion`.
   */
  readonly converter?: VersionConverter;
  /** A hub object in `apiVersion` (a copy); the objects it is given are the hub's already when unset. */
  readonly fromHub?: (object: KubeObject) => KubeObject;
}

const identity = (object: KubeObject): KubeObject => object;

/** Records field ownership for one endpoint. */
export class FieldManager {
  readonly #options: FieldManagerOptions;
  readonly #fromHub: (object: KubeObject) => KubeObject;
  readonly #resetFields: FieldSet | undefined;
  /** The type an applied configuration must be, as kube prints one. */
  readonly #type: string;

  constructor(options: FieldManagerOptions) {
    this.#options = options;
    this.#fromHub = options.fromHub ?? identity;
    this.#type = formatGroupVersionKind(groupVersionKindOf({ apiVersion: options.apiVersion, kind: options.kind }));
    this.#resetFields = options.resetFields.length ? FieldSet.of(options.resetFields.map((name) => fieldPath(name))) : undefined;
  }

  #context(manager: string) {
    const { schema, resolve, apiVersion, subresource, converter } = this.#options;
    return { schema, resolve, apiVersion, subresource, converter, manager, now: now(), resetFields: this.#resetFields };
  }

  /**
   * `updated` with managedFields recording that `manager` changed what differs from `live`
   * (undefined on create): both hub objects, compared in the endpoint's version.
   */
  update(live: KubeObject | undefined, updated: KubeObject, manager: string): KubeObject {
    const old = live && this.#fromHub(live);
    const entries = updateManagedFields({ ...this.#context(manager), old, updated: this.#fromHub(updated) });
    return withManagedFields(updated, entries);
  }

  /**
   * Checks an applied configuration is of the endpoint's type, as kube's versionCheckManager
   * does before anything else: 400 unless it names the endpoint's apiVersion and kind, both
   * (an applied configuration is never completed from the URL, as a typed body is).
   */
  checkApplied(applied: Readonly<Record<string, unknown>>): asserts applied is KubeObject {
    const type = formatGroupVersionKind(groupVersionKindOf(applied));
    if (type !== this.#type) throw badRequest(`invalid object type: ${type}`);
    if (applied.metadata !== undefined && !isPlainObject(applied.metadata)) throw badRequest('metadata must be an object');
  }

  /**
   * The object an apply of `applied` by `manager` makes of `live` (a hub object), with its
   * managedFields, in the endpoint's version, where an applied configuration is written; 409
   * on conflicts unless `force` (after {@link checkApplied}).
   */
  apply(live: KubeObject | undefined, applied: KubeObject, manager: string, force: boolean): KubeObject {
    this.checkApplied(applied);
    return applyPatch({ ...this.#context(manager), live: live && this.#fromHub(live), applied, force }).object;
  }
}
