/**
 * kube's watchEncoder: one watch's events as the frames its stream writes — each hub
 * object converted to the request's version and put in the negotiated representation
 * (`Representation`), encoded and framed by a serializer that streams.
 */
import type { KubeObject } from '../../machinery/meta/object.js';
import type { Status } from '../../machinery/status.js';
import { cacheEncode, type Identifier } from '../../machinery/caching-object.js';
import type { Representation } from '../response/representation.js';
import type { Serializer, StreamSerializer, WatchEventValue } from '../serializers/serializer.js';

/** A watch event on the wire. */
interface WireEvent extends WatchEventValue {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
}

/** The type of an event that carries an object. */
export type ObjectEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One encoded and framed event. */
export type Frame = string | Uint8Array;

// A shared frame is kept as bytes: a string is encoded to UTF-8 again by every socket it
// is written to. TextEncoder gives each frame its own buffer, where a pooled Buffer.from
// slice would hold a whole 8 KiB pool for as long as the watch cache holds the event.
const utf8 = new TextEncoder();

/** Encodes the events of one watch. */
export class WatchEncoder {
  readonly #representation: Representation;
  readonly #stream: StreamSerializer;
  /** Per event type, what names this watch's frames among all watchers'; none when the representation is this watch's own (Table). */
  readonly #frames: Readonly<Record<ObjectEventType, Identifier>> | undefined;

  /** Encodes objects of `apiVersion`; `serializer` must stream: negotiation offers watches no other. */
  constructor(apiVersion: string, representation: Representation, serializer: Serializer) {
    if (!serializer.streamSerializer) throw new Error(`${serializer.mediaType} cannot carry a watch stream`);
    this.#representation = representation;
    this.#stream = serializer.streamSerializer;
    const shown = representation.watchIdentifier;
    // The type is part of the name: a selector turns one change into MODIFIED for some watchers and ADDED or DELETED for others.
    const frame = (type: ObjectEventType) => `watch ${type} ${apiVersion} ${shown} ${serializer.mediaType}`;
    this.#frames = shown === undefined ? undefined : { ADDED: frame('ADDED'), MODIFIED: frame('MODIFIED'), DELETED: frame('DELETED') };
  }

  /** The media type of the stream. */
  get mediaType(): string {
    return this.#stream.mediaType;
  }

  /** An object's event made for this watch alone: the objects of its initial list are no other watch's. */
  objectEvent(type: ObjectEventType, object: KubeObject): Frame {
    return this.#frame({ type, object: this.#representation.watchObject(object, false) });
  }

  /**
   * An object's event from storage's watch, whose hub object other watches are handed
   * too: it is converted once per version (by the representation), and the frame made once
   * per event type, version, representation and media type (`caching-object.ts`). A Table
   * is this watch's own.
   */
  sharedObjectEvent(type: ObjectEventType, object: KubeObject): Frame {
    if (this.#frames === undefined) return this.#frame({ type, object: this.#representation.watchObject(object, true) });
    return cacheEncode(object, this.#frames[type], (o) => {
      const frame = this.#frame({ type, object: this.#representation.watchObject(o, true) });
      return typeof frame === 'string' ? utf8.encode(frame) : frame;
    });
  }

  /** A BOOKMARK at `resourceVersion`. */
  bookmark(resourceVersion: string, annotations?: Readonly<Record<string, string>>): Frame {
    return this.#frame({ type: 'BOOKMARK', object: this.#representation.bookmark(resourceVersion, annotations) });
  }

  /** An ERROR event carrying `status`. */
  error(status: Status): Frame {
    return this.#frame({ type: 'ERROR', object: status });
  }

  #frame(event: WireEvent): Frame {
    return this.#stream.frame(this.#stream.encodeEvent(event));
  }
}
