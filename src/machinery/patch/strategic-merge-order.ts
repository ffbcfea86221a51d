/**
 * The order of merged lists in strategic merge patch, as k8s.io/apimachinery's
 * strategicpatch orders them (normalizeElementOrder, validatePatchWithSetOrderList):
 * the patch, or its `$setElementOrder` list, orders the items it names; the others
 * keep the order the object gave them, interleaved where both orders agree.
 */
import { unprocessable } from '../errors.js';
import { isPlainObject } from '../meta/object.js';
import { asMap, directive, goValue, keyOf, setElementOrderPrefix, type JsonMap } from './strategic-merge-format.js';

/**
 * Orders merged items: those `order` names, in its order, interleaved with the others
 * in the order `serverOrder` gives them; where the two disagree, an item `order` names
 * comes first. `maps` says the items are maps identified by `mergeKey`.
 */
export function orderMerged(merged: unknown[], order: unknown[], serverOrder: unknown[], mergeKey: string | undefined, maps: boolean): unknown[] {
  const key = mergeKey ?? '';
  if (mergeKey !== undefined || maps) {
    for (const item of [...merged, ...order, ...serverOrder]) keyOf(asMap(item), key);
  }
  const identify = maps ? (item: unknown) => (item as JsonMap)[key] : (item: unknown) => item;
  const rank = firstIndexes(order, identify);
  const serverRank = firstIndexes(serverOrder, identify);
  const named = sortByRank(
    merged.filter((item) => rank.has(identify(item))),
    rank,
    identify,
    maps,
  );
  const serverOnly = sortByRank(
    merged.filter((item) => !rank.has(identify(item))),
    serverRank,
    identify,
    maps,
  );
  const result: unknown[] = [];
  let left = 0;
  let right = 0;
  while (left < serverOnly.length && right < named.length) {
    const l = serverRank.get(identify(serverOnly[left]));
    const r = serverRank.get(identify(named[right]));
    if (l !== undefined && r !== undefined && l < r) result.push(serverOnly[left++]);
    else result.push(named[right++]);
  }
  return [...result, ...serverOnly.slice(left), ...named.slice(right)];
}

/** Checks that a patch list names its items in the order its `$setElementOrder` list gives them; 422 otherwise. */
export function checkPatchOrder(patchList: unknown[], order: unknown[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === undefined ? patchList : patchList.filter((item) => asMap(item)[directive] !== 'delete');
  let matched = 0;
  for (let at = 0; matched < items.length && at < order.length;) {
    const item = items[matched];
    if (isPlainObject(item) && Object.hasOwn(item, directive)) {
      matched++;
      continue;
    }
    if (sameItem(item, order[at], mergeKey)) matched++;
    at++;
  }
  if (matched < items.length) {
    throw unprocessable(`the order in patch list:\n${goValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goValue(order)}`);
  }
}

/** Whether a patch item is the `$setElementOrder` item `right` names. */
function sameItem(left: unknown, right: unknown, mergeKey: string | undefined): boolean {
  if (mergeKey === undefined) return left === right;
  return keyOf(asMap(left), mergeKey) === keyOf(asMap(right), mergeKey);
}

/** Where each item first appears in `list`, by identity. */
function firstIndexes(list: unknown[], identify: (item: unknown) => unknown): Map<unknown, number> {
  const indexes = new Map<unknown, number>();
  list.forEach((item, index) => {
    if (!indexes.has(identify(item))) indexes.set(identify(item), index);
  });
  return indexes;
}

/** A stable sort by rank; unranked items and, in lists of maps, deletion items come last. */
function sortByRank(items: unknown[], rank: Map<unknown, number>, identify: (item: unknown) => unknown, maps: boolean): unknown[] {
  const deletion = (item: unknown) => maps && (item as JsonMap)[directive] === 'delete';
  const position = (item: unknown) => rank.get(identify(item)) ?? rank.size;
  const kept = items.filter((item) => !deletion(item)).sort((a, b) => position(a) - position(b));
  return [...kept, ...items.filter(deletion)];
}
