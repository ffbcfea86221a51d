/**
 * What a group tells the rest of the server about each of its resources: names,
 * scope, schemas, printer columns and the strategy that holds its semantics. The
 * registry, discovery and OpenAPI are generic over these.
 */
import type { Admission, ObjectLookup } from './admission.js';
import type { FieldError } from '../machinery/errors.js';
import type { NameValidation } from '../machinery/meta/names.js';
import type { KubeObject } from '../machinery/meta/object.js';
import type { JsonSchema } from '../machinery/json-schema.js';
import type { FieldNumbers } from '../machinery/protobuf/schema-messages.js';
import type { ScalePaths } from '../machinery/types/scale.js';
import type { TableColumn } from '../machinery/types/table.js';

/**
 * One printer column, as in a Table's columnDefinitions; its cell is read from an object of
 * the version it belongs to, at `jsonPath` (`.spec.replicas`, as a CRD's printer column names it).
 */
export type PrinterColumn = TableColumn & { readonly jsonPath: string };

/**
 * A kind's semantics, as kube's `rest.RESTCreateStrategy`/`RESTUpdateStrategy` hold
 * them. Objects are in the storage version; defaults were applied when they were
 * decoded, in the version they were sent in.
 */
export interface Strategy {
  /** Clears what a client may not set on create; returns a new object. */
  prepareForCreate(object: KubeObject): KubeObject;
  /** Carries over from `old` what an update through this endpoint may not change (`.status` on the main resource); returns a new object. */
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject;
  /** Kind-specific validation beyond the schema, with field paths. */
  validate(object: KubeObject): FieldError[];
  /** Kind-specific validation of an update. */
  validateUpdate(object: KubeObject, old: KubeObject): FieldError[];
  /** Whether the change from `old` to `object` bumps `metadata.generation`. */
  generationChanged(object: KubeObject, old: KubeObject): boolean;
  /** The values of the selectable fields (`metadata.name`, `spec.runnerClassName`, …). */
  selectableFields(object: KubeObject): Readonly<Record<string, string>>;
  /**
   * The top-level fields a write through this endpoint resets to what was stored, per
   * apiVersion (kube's `GetResetFields`): nobody owns them through it, so they never conflict.
   */
  resetFields(): Readonly<Record<string, readonly string[]>>;
}

/**
 * One served version of a resource: its schema, defaults and conversion to and from
 * the storage version (the hub). Adding a version is one of these and one line in the
 * resource's `versions`.
 */
export interface ResourceVersion {
  readonly version: string;
  /** The OpenAPI v3 component schema of the kind in this version (`metadata` by $ref). */
  readonly schema: JsonSchema;
  /** The name of that component (`dev.cairn.v1.Pipeline`). */
  readonly schemaName: string;
  /** Defaults an object of this version in place, as kube defaults on decoding; only what is unset. */
  readonly defaults?: (object: KubeObject) => void;
  /** Converts an object of this version to the storage version; a copy, apiVersion included. Identity for the storage version. */
  readonly toStorage?: (object: KubeObject) => KubeObject;
  /** Converts an object of the storage version to this version; a copy, apiVersion included. Identity for the storage version. */
  readonly fromStorage?: (object: KubeObject) => KubeObject;
  /** The storage version's name of a field selector label of this version (kube's field label conversion); undefined when it has none. */
  readonly fieldLabel?: (label: string) => string | undefined;
  /**
   * Where a field the storage version's validation names is in this version (renamed,
   * or in the annotation that carries it), so a 422 speaks the request's version.
   */
  readonly fieldPath?: (storagePath: string) => string;
  /** The annotations `fromStorage` writes and `toStorage` consumes (what this version cannot express): never stored. */
  readonly conversionAnnotations?: readonly string[];
  /** The printer columns of objects of this version; the resource's when unset. */
  readonly printerColumns?: readonly PrinterColumn[];
}

/**
 * `log` (alias `logs`): lines appended to an object, read back as kube serves
 * `pods/log`. The lines belong to streams the object names, as a pod's log belongs to
 * its containers: a reader may select one, a writer names one.
 */
export interface LogSubresource {
  /** The query parameter (and JSON field of an append) naming a stream, as `container` does for pods: `step`. */
  readonly streamParameter: string;
  /** The streams the object has now, in order (a Pipeline's step names). */
  streamsOf(object: KubeObject): readonly string[];
}

/** The media types a log append accepts: JSON `{"<stream>": …, "lines": [...]}`, or text with the stream in the query. */
export const appendLogMediaTypes = ['application/json', 'text/plain'] as const;

/** The subresources a resource serves besides its main endpoint. */
export interface ResourceSubresources {
  /**
   * `status`: writes to it change only `.status`, and writes to the main resource
   * leave `.status` alone, as kube does for custom resources with the status subresource.
   */
  readonly status: boolean;
  /** `scale`: an autoscaling/v1 Scale mapped onto these paths of the object. */
  readonly scale?: ScalePaths;
  /** `log`: the object's log, in the streams it names. */
  readonly log?: LogSubresource;
  /** `history`: the object's retained revisions, newest first, each with the write that made it (a RevisionList). */
  readonly history?: boolean;
}

/** A resource of a group. */
export interface ApiResource {
  readonly group: string;
  /** `pipelines` */
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  /**
   * The rule for this kind's names, as kube's validation passes a `ValidateNameFunc` to
   * `ValidateObjectMeta`: DNS subdomains when unset. Every name also passes the path-segment rule.
   */
  readonly validateName?: NameValidation;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Served versions, in the order discovery lists them (kube's priority order). */
  readonly versions: readonly ResourceVersion[];
  /** The version clients are steered to (discovery's preferredVersion). */
  readonly preferredVersion: string;
  /** The version objects are stored and converted through (the hub). */
  readonly storageVersion: string;
  readonly strategy: Strategy;
  /** The printer columns of the storage version, and of every version that has no columns of its own. */
  readonly printerColumns: readonly PrinterColumn[];
  /** Field selectors accepted besides `metadata.name` and `metadata.namespace`. */
  readonly selectableFields: readonly string[];
  readonly subresources: ResourceSubresources;
  /**
   * Objects the server creates at startup when the resource has none, as kube-apiserver's
   * post-start hooks bootstrap the `default` namespace and the system PriorityClasses;
   * users may change or delete them afterwards.
   */
  readonly bootstrapObjects?: readonly KubeObject[];
}

/** A group and the resources it serves. */
export interface ApiGroup {
  readonly name: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
  readonly resources: readonly ApiResource[];
  /** The group's admission plugin (its business rules), reading the group's objects through `lookup`. */
  readonly admission?: (lookup: ObjectLookup) => Admission;
  /** Its kinds' Protocol Buffers field numbers (`npm run proto` keeps them); none serves no protobuf, as for custom resources. */
  readonly protobuf?: GroupProtobuf;
}

/** Where a group's protobuf field numbers are kept: they never change once given, so they are committed. */
export interface GroupProtobuf {
  readonly fieldNumbers: FieldNumbers;
  /** The committed file of `fieldNumbers`, relative to the repository. */
  readonly fieldNumbersFile: string;
}

/** The served version `version` of `resource`, if any. */
export function servedVersion(resource: ApiResource, version: string): ResourceVersion | undefined {
  return resource.versions.find((v) => v.version === version);
}

/** The storage version of `resource`. */
export function storageVersionOf(resource: ApiResource): ResourceVersion {
  const version = servedVersion(resource, resource.storageVersion);
  if (!version) throw new Error(`${resource.plural}.${resource.group}: storage version ${resource.storageVersion} is not served`);
  return version;
}
