/**
 * `metadata.managedFields` in and out: the entries kube-apiserver writes, decoded into
 * one FieldOwner per manager, and encoded back in kube's order.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { JsonSchema, SchemaResolver } from '../json-schema.js';
import { deepFreeze, isPlainObject, type KubeObject } from '../meta/object.js';
import { compareStrings, fieldPath } from './field-path.js';
import { FieldSet } from './field-set.js';

/** Who writes, through which endpoint, against which schema: what every ownership computation needs. */
export interface OwnershipContext {
  /** The `fieldManager` query parameter, or the name derived from the User-Agent. */
  readonly manager: string;
  /** The kind's schema at `apiVersion`, and the resolver of its references. */
  readonly schema: JsonSchema;
  readonly resolve: SchemaResolver;
  /** The group/version of the request, e.g. `cairn.dev/v1`. */
  readonly apiVersion: string;
  /** The time of the request, RFC 3339 to the second. */
  readonly now: string;
  /** The subresource written (`status`, `scale`), if any. */
  readonly subresource?: string;
  /** Fields the endpoint's strategy resets (`.status` on the main resource): owned by nobody through it, never in conflict. */
  readonly resetFields?: FieldSet;
  /** The other versions the kind is served in; without it, every entry is read as if written in `apiVersion`. */
  readonly converter?: VersionConverter;
}

/**
 * The kind's other served versions, as kube's field manager converts objects into
 * them (`fieldmanager.versionConverter`): a manager's fields are paths of the
 * apiVersion it wrote them in, so a write is compared with them there.
 */
export interface VersionConverter {
  /** `object` (without managedFields) converted from the request's apiVersion into `apiVersion`, leaving `object` unchanged; undefined when that version is not served. */
  convert(object: KubeObject, apiVersion: string): KubeObject | undefined;
  /** The kind's schema in `apiVersion`, undefined when not served. */
  schema(apiVersion: string): JsonSchema | undefined;
}

/** One manager's fields, from one managedFields entry. */
export interface FieldOwner {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  /** The apiVersion the paths are written in. */
  readonly apiVersion: string;
  /** RFC 3339, when the manager last changed its fields. */
  readonly time?: string;
  /** `status`, `scale`…, or undefined for the main resource. */
  readonly subresource?: string;
  readonly fields: FieldSet;
}

/**
 * Fields nobody owns, as kube-apiserver strips them from every manager's set: the type
 * and the metadata the server sets or that names the object. Labels, annotations,
 * finalizers and ownerReferences remain ownable.
 */
export const strippedFields = FieldSet.of([
  fieldPath('apiVersion'),
  fieldPath('kind'),
  fieldPath('metadata'),
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((name) =>
    fieldPath('metadata', name),
  ),
]);

/**
 * What tells managers apart, as kube's manager identifier: name, operation,
 * subresource, and for Update entries the apiVersion (an applier keeps one entry
 * across versions). Its JSON form is also the order kube sorts conflicts by.
 */
export function ownerIdentity(owner: Pick<FieldOwner, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify({
    manager: owner.manager || undefined,
    operation: owner.operation,
    apiVersion: owner.operation === 'Update' ? owner.apiVersion : undefined,
    subresource: owner.subresource || undefined,
  });
}

/**
 * Decodes managedFields entries, one owner per identity (a later duplicate wins);
 * undefined when any entry is invalid, as kube then ignores them all.
 */
export function decodeManagedFields(entries: unknown): FieldOwner[] | undefined {
  if (!Array.isArray(entries)) return undefined;
  const owners = new Map<string, FieldOwner>();
  for (const [index, entry] of entries.entries()) {
    const owner = decodeEntry(entry, index);
    if (typeof owner === 'string') return undefined;
    owners.set(ownerIdentity(owner), owner);
  }
  return [...owners.values()];
}

/**
 * Why `entries` are not valid managedFields, in kube's words (`operation must be
 * \`Apply\` or \`Update\``); undefined when they are, or when there are none. kube's
 * `ValidateManagedFields`, which its handlers ask after mutating admission.
 */
export function managedFieldsProblem(entries: unknown): string | undefined {
  if (entries === undefined || entries === null || encodedEntries.has(entries)) return undefined;
  if (!Array.isArray(entries)) return 'managedFields must be a list';
  for (const [index, entry] of entries.entries()) {
    const owner = decodeEntry(entry, index);
    if (typeof owner === 'string') return owner;
  }
  return undefined;
}

/** One entry as an owner, or what is wrong with it (in the order kube's DecodeManagedFields checks). */
function decodeEntry(entry: unknown, index: number): FieldOwner | string {
  if (!isPlainObject(entry)) return `managed fields entry ${index} is not an object`;
  const { manager = '', operation, apiVersion, time, subresource, fieldsType, fieldsV1 } = entry;
  if (operation !== 'Apply' && operation !== 'Update') return 'operation must be `Apply` or `Update`';
  if (typeof apiVersion !== 'string' || apiVersion === '') return 'apiVersion must not be empty';
  if (fieldsType === undefined || fieldsType === '') return `missing fieldsType in managed fields entry ${index}`;
  if (fieldsType !== 'FieldsV1') return `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${index}`;
  if (typeof manager !== 'string' || (time !== undefined && typeof time !== 'string') || (subresource !== undefined && typeof subresource !== 'string')) {
    return `error decoding manager of managed fields entry ${index}`;
  }
  let fields: FieldSet;
  try {
    fields = FieldSet.fromFieldsV1(fieldsV1 ?? {});
  } catch (error) {
    return `error decoding versioned set of managed fields entry ${index}: ${(error as Error).message}`;
  }
  return { manager, operation, apiVersion, fields, ...(time ? { time } : {}), ...(subresource ? { subresource } : {}) };
}

/**
 * The entries {@link encodeManagedFields} made, deep-frozen: valid as made and unchanged
 * since, so {@link managedFieldsProblem} need not decode them again after admission
 * (which, untouched by the plugins, a write's own always are).
 */
const encodedEntries = new WeakSet<object>();

/**
 * Encodes owners as managedFields entries, in kube-apiserver's order (Apply before
 * Update, then oldest first, then manager, apiVersion, subresource); owners of
 * nothing are left out. The entries are deep-frozen.
 */
export function encodeManagedFields(owners: readonly FieldOwner[]): readonly ManagedFieldsEntry[] {
  const entries = owners
    .filter((owner) => !owner.fields.isEmpty)
    .sort(
      (p, q) =>
        compareStrings(p.operation, q.operation) ||
        entrySeconds(p.time) - entrySeconds(q.time) ||
        compareStrings(p.manager, q.manager) ||
        compareStrings(p.apiVersion, q.apiVersion) ||
        compareStrings(p.subresource ?? '', q.subresource ?? ''),
    )
    .map((owner) => ({
      manager: owner.manager || undefined,
      operation: owner.operation,
      apiVersion: owner.apiVersion,
      time: owner.time,
      fieldsType: 'FieldsV1',
      fieldsV1: owner.fields.toFieldsV1(),
      subresource: owner.subresource,
    }))
    .map((entry) => Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as ManagedFieldsEntry);
  encodedEntries.add(deepFreeze(entries));
  return entries;
}

/** An entry's time in whole seconds, as kube compares them; 0 for an entry without one. */
export function entrySeconds(time: string | undefined): number {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * A copy of `object` whose metadata.managedFields are `entries` (a copy of them, unless
 * they are {@link encodeManagedFields}'s, which nobody can change), or without the field
 * when there are none.
 */
export function withManagedFields<T extends KubeObject>(object: T, entries: readonly ManagedFieldsEntry[]): T {
  if (!object.metadata && entries.length === 0) return object;
  const { managedFields: _, ...metadata } = object.metadata ?? {};
  if (entries.length === 0) return { ...object, metadata };
  const managedFields = encodedEntries.has(entries) ? (entries as ManagedFieldsEntry[]) : [...entries];
  return { ...object, metadata: { ...metadata, managedFields } };
}
