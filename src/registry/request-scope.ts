/**
 * What a handler needs to serve one resource (or subresource) in one version, as
 * kube's `RequestScope` holds it: the kind it speaks, how a body of that version is
 * decoded into the hub — the storage version, which the registry's Store works in — (identity
 * checked, nulls unset, unknown fields pruned, defaults applied, then converted — the
 * store's validation then changes nothing), the conversion of a hub object back to the
 * request's version (kube's `scope.Convertor`), field-label conversion and the field
 * manager. The registry builds one per endpoint at startup, beside the endpoint's REST
 * object (`endpoints.ts`).
 */
import { storageVersionOf, type ApiResource, type ResourceVersion, type Strategy } from '../apis/api-resource.js';
import { badRequest, invalid, patchInvalid } from '../machinery/errors.js';
import { dropNulls, unknownFields, type JsonSchema, type SchemaResolver } from '../machinery/json-schema.js';
import { isPlainObject, type KubeObject, type ObjectMeta } from '../machinery/meta/object.js';
import { convertRevisions, revisionListKind, revisionRowMetadata, revisionTableColumns, type RevisionList } from '../machinery/types/revision-list.js';
import { scaleSchemaName, scaleTypeError } from '../machinery/types/scale.js';
import { defaultTableColumns, type TableColumn } from '../machinery/types/table.js';
import type { FieldValidation } from './request-options.js';
import type { SchemaValidator } from './schema-validator.js';
import type { VersionValidation } from './endpoint-rest.js';
import { listFields } from '../machinery/meta/metadata-fields.js';
import type { VersionConverter } from '../machinery/managed-fields/managed-fields.js';
import { FieldManager } from './field-manager.js';
import { patchContentTypes, patchTypes } from '../machinery/patch/patch.js';

/** A decoded write body: the object, and what field validation reports about it. */
export interface DecodedObject {
  readonly object: KubeObject;
  /** `unknown field "spec.x"` and `duplicate field "spec.replicas"` problems, as Warning headers say them. */
  readonly warnings: readonly string[];
}

/** A value a patch made, and how kube's 422 about it quotes it (the patched object, or the patch). */
export interface PatchedValue {
  readonly quoted: string;
}

/** One endpoint in one version. */
export interface RequestScope {
  readonly resource: ApiResource;
  /** The request's version. */
  readonly version: string;
  /** The subresource served (`status`, `scale`), if any. */
  readonly subresource?: string;
  /** What the endpoint's objects are: `cairn.dev/v1` Pipeline, or `autoscaling/v1` Scale. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The media types a PATCH of the endpoint may carry. */
  readonly patchContentTypes: readonly string[];
  /** The columns of the endpoint's objects in a Table. */
  readonly tableColumns: readonly TableColumn[];
  /** The schema of the endpoint's objects in the request's version, for patches. */
  readonly schema: JsonSchema;
  readonly resolve: SchemaResolver;
  readonly fieldManager: FieldManager;
  /**
   * A hub object in the request's version (a copy; the object itself in the storage version),
   * as kube's `scope.Convertor` converts one to the request's `GroupVersion`.
   */
  readonly fromHub: (object: KubeObject) => KubeObject;
  /**
   * kube's `scope.FieldManager.UpdateNoErrors`, which handlers run on the object a write
   * that is not an apply made, before mutating admission: `object` (a hub object) with
   * managedFields recording that `manager` made it of `live` (undefined on create), compared
   * in the request's version. A Scale carries no
   * managedFields: it is returned as it is, and its endpoint records the write on the
   * object (see `EndpointWriteOptions.manager`).
   */
  readonly recordUpdate: (live: KubeObject | undefined, object: KubeObject, manager: string) => KubeObject;
  /**
   * Decodes a body of the request's version, in place (the value must be the request's
   * own), and returns it as a hub object (it, or a copy: converted, or completing its
   * apiVersion and kind); 400 when it is not one (or, under Strict, has unknown or duplicate
   * fields). Given `patched`, the
   * value is what a patch made of the object, and a failure is kube's patcher's 422 instead,
   * quoting `patched.quoted`.
   */
  readonly decode: (value: unknown, fieldValidation: FieldValidation, duplicateFields: readonly string[], patched?: PatchedValue) => DecodedObject;
  /** The storage version's name of a field selector label of this version; undefined when the label is not one. */
  readonly fieldLabel: (label: string) => string | undefined;
  /** Set when the endpoint's kind is a list of items that are not objects (a RevisionList): a Table shows a row per item, with this metadata. */
  readonly tableItems?: {
    readonly items: (object: KubeObject) => readonly KubeObject[];
    readonly metadata: (item: KubeObject) => ObjectMeta | undefined;
  };
}

/**
 * A body as an object of `kind` in `apiVersion`, as kube's typed decoders read one; 400 when
 * it is of another. What the body leaves out of its type is the endpoint's, as the decoders'
 * `gvkWithDefaults` takes it from the URL for a built-in kind: the kind, and the apiVersion
 * (written into the object, first, where it lacks them).
 */
function typedBody(body: unknown, kind: string, apiVersion: string): KubeObject {
  if (!isPlainObject(body)) throw badRequest('the body of the request must be a JSON object');
  const sentVersion = body.apiVersion ?? '';
  const sentKind = body.kind ?? '';
  if (sentVersion !== '' && sentVersion !== apiVersion) {
    const shown = typeof sentVersion === 'string' ? sentVersion : JSON.stringify(sentVersion);
    throw badRequest(`the API version in the data (${shown}) does not match the expected API version (${apiVersion})`);
  }
  const version = apiVersion.split('/').at(-1);
  if (sentKind !== '' && sentKind !== kind)
    throw badRequest(
      `${JSON.stringify(sentKind)} in version "${version}" cannot be handled as a ${kind}: the kind in the data does not match the expected kind ${kind}`,
    );
  if (body.metadata !== undefined && !isPlainObject(body.metadata)) throw badRequest('metadata must be an object');
  if (sentVersion !== '' && sentKind !== '') return body;
  // Assigned again after the spread, which a null of the body's would otherwise win; keys keep their place.
  const typed: KubeObject = { apiVersion, kind, ...body };
  typed.apiVersion = apiVersion;
  typed.kind = kind;
  return typed;
}

function strictError(kind: string, version: string, problems: readonly string[]): Error {
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(', ')}`);
}

const identity = (object: KubeObject): KubeObject => object;

/**
 * Converts objects of `from` into the resource's other served versions, for the field
 * manager to compare a write with each manager's fields in the version it wrote them in.
 */
function versionConverter(resource: ApiResource, from: ResourceVersion, validator: SchemaValidator): VersionConverter {
  const served = (apiVersion: string) => resource.versions.find((v) => `${resource.group}/${v.version}` === apiVersion);
  return {
    convert(object, apiVersion) {
      const target = served(apiVersion);
      if (!target) return undefined;
      if (target === from) return object;
      return (target.fromStorage ?? identity)((from.toStorage ?? identity)(object));
    },
    schema: (apiVersion) => {
      const target = served(apiVersion);
      return target && validator.schema(target.schemaName);
    },
  };
}

/** A shallow copy of `object` without the top-level `fields`. */
function without(object: KubeObject, fields: readonly string[]): KubeObject {
  const copy = { ...object };
  for (const field of fields) delete copy[field];
  return copy;
}

/** How objects of `served` are converted to the hub and back. */
function hubConversion(
  resource: ApiResource,
  served: ResourceVersion,
): { toHub: (object: KubeObject) => KubeObject; fromHub: (object: KubeObject) => KubeObject } {
  const storage = storageVersionOf(resource);
  // Defaults run in the request's version when decoding, and again on the hub after conversion.
  const toHub = served.toStorage
    ? (object: KubeObject): KubeObject => {
        const converted = served.toStorage!(object);
        storage.defaults?.(converted);
        return converted;
      }
    : identity;
  return { toHub, fromHub: served.fromStorage ?? identity };
}

/**
 * What the REST object of `served`'s endpoints checks in that version: a hub object about to
 * be stored, converted back to `served`, against that version's schema, so its 422 names the
 * fields the client sent (the store validates the hub). Fields the endpoint resets are left
 * out: the stored ones replace them.
 */
export function versionValidation(resource: ApiResource, served: ResourceVersion, validator: SchemaValidator, strategy: Strategy): VersionValidation {
  const apiVersion = `${resource.group}/${served.version}`;
  if (served === storageVersionOf(resource)) return { validate: () => undefined };
  const resetFields = strategy.resetFields()[apiVersion] ?? [];
  const { fromHub } = hubConversion(resource, served);
  return {
    validate: (hub) => {
      const object = fromHub(hub);
      const errors = validator.validate(served.schemaName, without(object, resetFields));
      if (errors.length) throw invalid(resource.kind, resource.group, object.metadata?.name ?? '', errors);
    },
    fieldPath: served.fieldPath,
  };
}

/** The scope of `resource`'s main endpoint (or another that speaks its kind, `subresource`) in `served`, writing through `strategy`. */
export function objectScope(
  resource: ApiResource,
  served: ResourceVersion,
  validator: SchemaValidator,
  strategy: Strategy,
  subresource?: string,
): RequestScope {
  const apiVersion = `${resource.group}/${served.version}`;
  const schema = validator.schema(served.schemaName);
  const selectable = new Set(['metadata.name', ...(resource.namespaced ? ['metadata.namespace'] : []), ...resource.selectableFields, ...listFields]);
  const resetFields = strategy.resetFields()[apiVersion] ?? [];
  const converter = versionConverter(resource, served, validator);
  const { toHub, fromHub } = hubConversion(resource, served);
  const fieldManager = new FieldManager({ schema, resolve: validator.resolve, apiVersion, kind: resource.kind, subresource, resetFields, converter, fromHub });
  return {
    resource,
    version: served.version,
    subresource,
    apiVersion,
    kind: resource.kind,
    patchContentTypes,
    tableColumns: served.printerColumns ?? resource.printerColumns,
    schema,
    resolve: validator.resolve,
    fieldManager,
    fromHub,
    recordUpdate: (live, object, manager) => fieldManager.update(live, object, manager),
    decode(value, fieldValidation, duplicateFields, patched) {
      // In place: a body is parsed for this request alone, and a patch applies to a copy of the stored object.
      const object = typedBody(value, resource.kind, apiVersion);
      dropNulls(object, schema, validator.resolve);
      const unknown = unknownFields(object, schema, validator.resolve, true);
      const problems = [...duplicateFields.map((f) => `duplicate field "${f}"`), ...unknown.map((f) => `unknown field "${f}"`)];
      if (problems.length && fieldValidation === 'Strict') {
        throw patched ? patchInvalid(patched.quoted, `strict decoding error: ${problems.join(', ')}`) : strictError(resource.kind, served.version, problems);
      }
      served.defaults?.(object);
      return { object: toHub(object), warnings: fieldValidation === 'Warn' ? problems : [] };
    },
    fieldLabel: (label) => {
      const converted = served.fieldLabel ? served.fieldLabel(label) : label;
      return converted !== undefined && selectable.has(converted) ? converted : undefined;
    },
  };
}

/** The scope of `/scale` (`subresource`): autoscaling/v1 Scale whatever the version, ownership recorded on the object. */
export function scaleScope(resource: ApiResource, version: string, validator: SchemaValidator, subresource: string): RequestScope {
  const storage = storageVersionOf(resource);
  const apiVersion = `${resource.group}/${storage.version}`;
  // A Scale write is recorded on the object, where only replicas change: status and metadata stay as stored. It is
  // recorded once the Scale (admitted by then) is mapped onto the object: a Scale has no managedFields to record in first.
  const fieldManager = new FieldManager({
    schema: validator.schema(storage.schemaName),
    resolve: validator.resolve,
    apiVersion,
    kind: resource.kind,
    subresource,
    resetFields: ['status', 'metadata'],
    converter: versionConverter(resource, storage, validator),
  });
  return {
    resource,
    version,
    subresource,
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    // A Scale takes patches, not applied configurations.
    patchContentTypes: Object.values(patchTypes),
    tableColumns: defaultTableColumns,
    schema: validator.schema(scaleSchemaName),
    resolve: validator.resolve,
    fieldManager,
    // A Scale is its own hub: the REST object maps it onto the object.
    fromHub: identity,
    recordUpdate: (_live, scale) => scale,
    // What a Scale may hold is checked where it is mapped onto the object (machinery/scale.ts); a patched Scale's types
    // here, for kube's patcher refuses them with its 422.
    decode: (value, _fieldValidation, _duplicateFields, patched) => {
      const typeError = patched && scaleTypeError(value);
      if (patched && typeError) throw patchInvalid(patched.quoted, typeError);
      return { object: value as KubeObject, warnings: [] };
    },
    fieldLabel: () => undefined,
  };
}

/**
 * The scope of `history` (`subresource`) in `served`: a RevisionList of the request's
 * group-version, whose objects are converted from the hub as the object's own endpoint
 * converts them, and whose Table has a row per revision: its own columns, then the kind's
 * printer columns of `served` read from each revision's object.
 */
export function historyScope(
  resource: ApiResource,
  served: ResourceVersion,
  validator: SchemaValidator,
  strategy: Strategy,
  subresource: string,
): RequestScope {
  const scope = objectScope(resource, served, validator, strategy, subresource);
  const { fromHub } = hubConversion(resource, served);
  return {
    ...scope,
    kind: revisionListKind,
    tableColumns: revisionTableColumns(scope.tableColumns),
    fromHub: (list) => convertRevisions(list as unknown as RevisionList, scope.apiVersion, fromHub) as unknown as KubeObject,
    tableItems: { items: (list) => (list as unknown as RevisionList).items as unknown as readonly KubeObject[], metadata: revisionRowMetadata },
    fieldLabel: () => undefined,
  };
}
