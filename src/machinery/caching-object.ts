/**
 * kube's cacher `cachingObject`, kept beside the object rather than wrapped around it:
 * what an object becomes on its way to clients — converted to a version, encoded as a
 * watch event in a media type — made once per object and identifier and shared after.
 * The watch cache hands one frozen instance of each event's object to every watcher,
 * so a thousand watchers of one version cost one conversion and one serialization.
 *
 * Results are kept in a WeakMap keyed by the object: they go when the watch cache drops
 * the event (and nothing else holds its object), so what they cost grows with the events
 * the cache holds times the identifiers asked of them, never with the watchers. An object
 * only one request sees (a list's) gains nothing here, and would carry its results for
 * as long as that request holds it.
 */

/**
 * Names everything a result depends on besides the object, as kube's `runtime.Identifier`
 * names an encoder: one identifier must always make the same result of the same object.
 */
export type Identifier = string;

const results = new WeakMap<object, Map<Identifier, unknown>>();

/**
 * What `encode` makes of `object` under `identifier`: computed the first time, then the
 * same result for every caller. The object must never change (the watch cache's are
 * frozen) and nobody may change the result. A failure is not kept: the next caller tries
 * again.
 *
 * @example
 * const v2 = cacheEncode(event.object, 'convert widgets.test/v2', scope.fromHub);
 */
export function cacheEncode<O extends object, T>(object: O, identifier: Identifier, encode: (object: O) => T): T {
  let entries = results.get(object);
  if (entries === undefined) {
    entries = new Map();
    results.set(object, entries);
  }
  if (entries.has(identifier)) return entries.get(identifier) as T;
  const result = encode(object);
  entries.set(identifier, result);
  return result;
}

/** The identifier of an object's encoding in `mediaType`, as a response serializes it. */
export const encodingIdentifier = (mediaType: string): Identifier => `encode ${mediaType}`;

/**
 * Records `json` as the `application/json` encoding of `object` (frozen), which must
 * be `JSON.stringify(object)` exactly: storage knows it of an object it just wrote, whose
 * JSON it made for the row, and a response then sends it as it is.
 */
export function knownJson(object: object, json: string): void {
  if (!Object.isFrozen(object)) throw new Error('knownJson: the object must be frozen');
  cacheEncode(object, encodingIdentifier('application/json'), () => json);
}
