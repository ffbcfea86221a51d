/**
 * An event this process committed, handed to its watch cache at commit time rather
 * than read back from the log: the object is parsed from the JSON text that was
 * stored, the first time a watcher needs it, and frozen, as the log's events are.
 */
import { deepFreeze, type StoredObject } from '../machinery/meta/object.js';
import type { EventLogEntry } from './event-log-entry.js';
import type { FieldMap, StringMap } from './schema.js';
import { decodeJsonb } from './stored-text.js';

/** What an event is besides its object. */
export interface WrittenEventFields {
  readonly rv: bigint;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: EventLogEntry['type'];
  readonly labels: StringMap;
  readonly fields: FieldMap;
  readonly prevLabels?: StringMap;
  readonly prevFields?: FieldMap;
  /** The object before the change, when its labels or selectable fields changed (see {@link EventLogEntry.prevObject}); frozen. */
  readonly prevObject?: StoredObject;
}

/** A frozen EventLogEntry whose object is the stored JSON `text` (at its resourceVersion), or a frozen `object`. */
export class WrittenEvent implements EventLogEntry {
  readonly rv: bigint;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: EventLogEntry['type'];
  readonly labels: StringMap;
  readonly fields: FieldMap;
  readonly prevLabels: StringMap | null;
  readonly prevFields: FieldMap | null;
  readonly prevObject: StoredObject | null;
  #text: string | undefined;
  #object: StoredObject | undefined;

  constructor(fields: WrittenEventFields, object: { readonly text: string } | { readonly frozen: StoredObject }) {
    this.rv = fields.rv;
    this.resource = fields.resource;
    this.namespace = fields.namespace;
    this.name = fields.name;
    this.type = fields.type;
    this.labels = Object.freeze({ ...fields.labels });
    this.fields = Object.freeze({ ...fields.fields });
    this.prevLabels = fields.prevLabels ? Object.freeze({ ...fields.prevLabels }) : null;
    this.prevFields = fields.prevFields ? Object.freeze({ ...fields.prevFields }) : null;
    this.prevObject = fields.prevObject ?? null;
    if ('text' in object) this.#text = object.text;
    else this.#object = object.frozen;
    Object.freeze(this);
  }

  /** The object, parsed once; every reader gets the same frozen instance. */
  get object(): StoredObject {
    if (this.#object === undefined) {
      const parsed = decodeJsonb(this.#text!) as StoredObject;
      parsed.metadata.resourceVersion = this.rv.toString();
      this.#object = deepFreeze(parsed);
      this.#text = undefined;
    }
    return this.#object;
  }
}
