/**
 * The options of write requests, already decoded from query and body.
 */
import type { FieldSelector } from '../machinery/selectors/field-selector.js';
import type { LabelSelector } from '../machinery/selectors/label-selector.js';

/** `fieldValidation`: what to do with fields the schema does not know. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options every write verb takes. */
export interface WriteOptions {
  readonly dryRun: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation: FieldValidation;
  /** Fields the request body repeats (`spec.replicas`), for field validation. */
  readonly duplicateFields?: readonly string[];
}

/** DeleteOptions.preconditions. */
export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** DeleteOptions.propagationPolicy. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** Options of a delete. */
export interface DeleteOptions {
  readonly dryRun: boolean;
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  /** The deprecated form of propagationPolicy Orphan. */
  readonly orphanDependents?: boolean;
}

/** `resourceVersionMatch`. */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

/**
 * Options of a get: `resourceVersion` unset reads the newest object, `'0'` any state
 * the watch cache holds, N a state at least as new as N; with `resourceVersionMatch`
 * `Exact`, the object exactly as it was at N (404 when there was none then, 410 when
 * N is older than the resource's retained history).
 */
export interface GetOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
}

/** Options of list and watch. */
export interface ListOptions {
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  /** `resourceVersion` as the client sent it ('' when unset). */
  readonly resourceVersion: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  /** Page size; undefined (or 0 on the wire) for everything. */
  readonly limit?: number;
  /** The continue token of the previous page. */
  readonly continue?: string;
  /** How long a watch may last; a list takes and ignores it, as kube's does. */
  readonly timeoutSeconds?: number;
}

/** Options of watch. */
export interface WatchOptions extends ListOptions {
  /** `sendInitialEvents`, when sent. */
  readonly sendInitialEvents?: boolean;
  /** Milliseconds between BOOKMARK events; none when undefined. */
  readonly bookmarkIntervalMs?: number;
  /** How many objects each read of the initial state holds; 500 when undefined (smaller in tests). */
  readonly initialEventsPageSize?: number;
}

/** Options of a log read, as kube's PodLogOptions (whose `container` is our `stream`). */
export interface LogOptions {
  /** Only this stream's lines (a Pipeline's step); every stream's, in append order, when undefined. */
  readonly stream?: string;
  /** Keep the response open for new lines until the object is deleted or the client leaves. */
  readonly follow: boolean;
  /** Only the last this many lines. */
  readonly tailLines?: number;
  /** Only the lines of the last this many seconds. */
  readonly sinceSeconds?: number;
  /** Only the lines appended at or after this time. */
  readonly sinceTime?: Date;
  /** Prefix each line with the time it was appended. */
  readonly timestamps: boolean;
  /** Stop after this many bytes. */
  readonly limitBytes?: number;
}
