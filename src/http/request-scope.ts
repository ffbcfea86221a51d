/**
 * What a handler needs to serve one resource (or subresource) in one version, as
 * kube's `RequestScope` holds it: the kind it speaks, how a body of that version is
 * decoded (identity checked, nulls unset, unknown fields pruned, defaults applied —
 * the store's validation then changes nothing), conversion to and from the storage
 * version, field-label conversion, the field manager, and the REST object to call.
 */
import { servedVersion, storageVersionOf, type ApiResource, type ResourceVersion } from '../apis/api-resource.js';
import { badRequest, invalid, patchInvalid } from '../machinery/errors.js';
import { dropNulls, unknownFields, type JsonSchema, type SchemaResolver } from '../machinery/json-schema.js';
import { isPlainObject, type KubeObject } from '../machinery/meta/object.js';
import { scaleSchemaName, scaleTypeError } from '../machinery/types/scale.js';
import { defaultTableColumns, type TableColumn } from '../machinery/types/table.js';
import type { FieldValidation, GetOptions } from '../registry/request-options.js';
import type { ResourceStorages } from '../registry/registry.js';
import type { SchemaValidator } from '../registry/schema-validator.js';
import type { ObjectKey, Store, StoreWriteOptions, ValidateObject, ValidateObjectUpdate } from '../registry/store.js';
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

/** Options of a write through an endpoint. */
export interface EndpointWriteOptions extends StoreWriteOptions {
  /**
   * The manager of a write that is not an apply, for an endpoint whose objects carry no
   * managedFields: a Scale's records the write on the object the Scale is mapped onto.
   * Other endpoints ignore it: the handler recorded the write (`RequestScope.recordUpdate`).
   */
  readonly manager?: string;
}

/**
 * kube's rest.Creater, rest.Getter and rest.Updater over the kind an endpoint speaks
 * (the object in the request's version, or a Scale): handlers read and write every
 * endpoint the same way; conversion to the storage version happens inside.
 */
export interface EndpointREST {
  get(key: ObjectKey, options?: GetOptions): Promise<KubeObject>;
  /** Only the main endpoint creates. */
  create?(namespace: string, object: KubeObject, createValidation: ValidateObject, options: EndpointWriteOptions): Promise<KubeObject>;
  update(
    key: ObjectKey,
    objInfo: (current: KubeObject | undefined) => unknown,
    createValidation: ValidateObject,
    updateValidation: ValidateObjectUpdate,
    forceAllowCreate: boolean,
    options: EndpointWriteOptions,
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }>;
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
  readonly rest: EndpointREST;
  readonly fieldManager: FieldManager;
  /**
   * kube's `scope.FieldManager.UpdateNoErrors`, which handlers run on the object a write
   * that is not an apply made, before mutating admission: `object` with managedFields
   * recording that `manager` made it of `live` (undefined on create). A Scale carries no
   * managedFields: it is returned as it is, and its endpoint records the write on the
   * object (see {@link EndpointWriteOptions.manager}).
   */
  readonly recordUpdate: (live: KubeObject | undefined, object: KubeObject, manager: string) => KubeObject;
  /**
   * Decodes a body of the request's version, in place (the value must be the request's
   * own; the object returned is it, or a copy completing its apiVersion and kind); 400 when
   * it is not one (or, under Strict, has unknown or duplicate fields). Given `patched`, the
   * value is what a patch made of the object, and a failure is kube's patcher's 422 instead,
   * quoting `patched.quoted`.
   */
  readonly decode: (value: unknown, fieldValidation: FieldValidation, duplicateFields: readonly string[], patched?: PatchedValue) => DecodedObject;
  /** Converts an object of the request's version to the storage version. */
  readonly toStorage: (object: KubeObject) => KubeObject;
  /** Converts an object of the storage version to the request's version. */
  readonly fromStorage: (object: KubeObject) => KubeObject;
  /** The storage version's name of a field selector label of this version; undefined when the label is not one. */
  readonly fieldLabel: (label: string) => string | undefined;
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

/** How a store is spoken to in one version. */
interface VersionedStore {
  readonly store: Store;
  readonly toStorage: (object: KubeObject) => KubeObject;
  readonly fromStorage: (object: KubeObject) => KubeObject;
  /** Validates an object of the request's version before it is converted; 422 in that version's paths. */
  readonly validate: (object: KubeObject) => void;
  /** The request version's path of a field the storage version's validation names. */
  readonly fieldPath?: (storagePath: string) => string;
}

/** A store spoken to in one version: objects validated and converted on the way in and out. */
function versionedREST({ store, toStorage, fromStorage, validate, fieldPath }: VersionedStore): EndpointREST {
  const inStorage = (object: KubeObject): KubeObject => {
    validate(object);
    return toStorage(object);
  };
  return {
    get: async (key, options) => fromStorage(await store.get(key, options)),
    async create(namespace, object, createValidation, options) {
      return fromStorage(await store.create(namespace, inStorage(object), createValidation, { ...options, fieldPath }));
    },
    async update(key, objInfo, createValidation, updateValidation, forceAllowCreate, options) {
      const outcome = await store.update(
        key,
        async (current) => {
          const live = current && fromStorage(current);
          return inStorage((await objInfo(live)) as KubeObject);
        },
        createValidation,
        updateValidation,
        forceAllowCreate,
        { ...options, fieldPath },
      );
      return { object: fromStorage(outcome.object), created: outcome.created };
    },
  };
}

/** The scope of `resource`'s main endpoint (or `/status`) in `version`. */
function objectScope(
  resource: ApiResource,
  served: ResourceVersion,
  storages: ResourceStorages,
  validator: SchemaValidator,
  subresource?: 'status',
): RequestScope {
  const apiVersion = `${resource.group}/${served.version}`;
  const store = subresource === 'status' ? storages.status! : storages.store;
  const schema = validator.schema(served.schemaName);
  const selectable = new Set(['metadata.name', ...(resource.namespaced ? ['metadata.namespace'] : []), ...resource.selectableFields, ...listFields]);
  const storage = storageVersionOf(resource);
  const fromStorage = served.fromStorage ?? identity;
  // Defaults run in the request's version when decoding, and again on the hub after conversion.
  const toStorage = served.toStorage
    ? (object: KubeObject): KubeObject => {
        const converted = served.toStorage!(object);
        storage.defaults?.(converted);
        return converted;
      }
    : identity;
  const resetFields = store.strategy.resetFields()[apiVersion] ?? [];
  const converter = versionConverter(resource, served, validator);
  const fieldManager = new FieldManager({ schema, resolve: validator.resolve, apiVersion, kind: resource.kind, subresource, resetFields, converter });
  // The store validates the storage version; another version's schema is checked before conversion, so its 422 names
  // the fields the client sent. Fields the endpoint resets are left out: the stored ones replace them.
  const validate =
    served === storage
      ? () => undefined
      : (object: KubeObject): void => {
          const errors = validator.validate(served.schemaName, without(object, resetFields));
          if (errors.length) throw invalid(resource.kind, resource.group, object.metadata?.name ?? '', errors);
        };
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
    rest: versionedREST({ store, toStorage, fromStorage, validate, fieldPath: served.fieldPath }),
    fieldManager,
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
      return { object, warnings: fieldValidation === 'Warn' ? problems : [] };
    },
    toStorage,
    fromStorage,
    fieldLabel: (label) => {
      const converted = served.fieldLabel ? served.fieldLabel(label) : label;
      return converted !== undefined && selectable.has(converted) ? converted : undefined;
    },
  };
}

/** The scope of `/scale`: autoscaling/v1 Scale whatever the version, ownership recorded on the object. */
function scaleScope(resource: ApiResource, version: string, storages: ResourceStorages, validator: SchemaValidator): RequestScope {
  const storage = storageVersionOf(resource);
  const apiVersion = `${resource.group}/${storage.version}`;
  const scale = storages.scale!;
  // A Scale write is recorded on the object, where only replicas change: status and metadata stay as stored. It is
  // recorded once the Scale (admitted by then) is mapped onto the object: a Scale has no managedFields to record in first.
  const fieldManager = new FieldManager({
    schema: validator.schema(storage.schemaName),
    resolve: validator.resolve,
    apiVersion,
    kind: resource.kind,
    subresource: 'scale',
    resetFields: ['status', 'metadata'],
    converter: versionConverter(resource, storage, validator),
  });
  return {
    resource,
    version,
    subresource: 'scale',
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    // A Scale takes patches, not applied configurations.
    patchContentTypes: Object.values(patchTypes),
    tableColumns: defaultTableColumns,
    schema: validator.schema(scaleSchemaName),
    resolve: validator.resolve,
    rest: {
      get: (key, options) => scale.get(key, options),
      async update(key, objInfo, _createValidation, updateValidation, _forceAllowCreate, options) {
        const record = (object: KubeObject, current: KubeObject) =>
          options.manager === undefined ? object : fieldManager.update(current, object, options.manager);
        return { object: await scale.update(key, objInfo, record, updateValidation, options), created: false };
      },
    },
    fieldManager,
    recordUpdate: (_live, scale) => scale,
    // What a Scale may hold is checked where it is mapped onto the object (machinery/scale.ts); a patched Scale's types
    // here, for kube's patcher refuses them with its 422.
    decode: (value, _fieldValidation, _duplicateFields, patched) => {
      const typeError = patched && scaleTypeError(value);
      if (patched && typeError) throw patchInvalid(patched.quoted, typeError);
      return { object: value as KubeObject, warnings: [] };
    },
    toStorage: identity,
    fromStorage: identity,
    fieldLabel: () => undefined,
  };
}

/** The scopes made so far, per registry's storages of a resource: a scope holds nothing of one request. */
const scopes = new WeakMap<ResourceStorages, Map<string, RequestScope>>();

/**
 * The scope of a request for `resource`'s `subresource` (or main endpoint) in `version`;
 * undefined when not served. Made once per endpoint and version, then shared by every
 * request to it, as kube's installer makes one RequestScope per route.
 */
export function requestScope(
  resource: ApiResource,
  version: string,
  subresource: string | undefined,
  storages: ResourceStorages,
  validator: SchemaValidator,
): RequestScope | undefined {
  let made = scopes.get(storages);
  if (!made) scopes.set(storages, (made = new Map<string, RequestScope>()));
  // Only served endpoints are kept: what a client names otherwise is unbounded.
  const key = `${version}/${subresource ?? ''}`;
  const known = made.get(key);
  if (known) return known;
  const scope = newRequestScope(resource, version, subresource, storages, validator);
  if (scope) made.set(key, scope);
  return scope;
}

function newRequestScope(
  resource: ApiResource,
  version: string,
  subresource: string | undefined,
  storages: ResourceStorages,
  validator: SchemaValidator,
): RequestScope | undefined {
  const served = servedVersion(resource, version);
  if (!served) return undefined;
  switch (subresource) {
    case undefined:
    case 'log':
      return objectScope(resource, served, storages, validator);
    case 'status':
      return storages.status && objectScope(resource, served, storages, validator, 'status');
    case 'scale':
      return storages.scale && scaleScope(resource, version, storages, validator);
    default:
      return undefined;
  }
}
