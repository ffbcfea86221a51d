import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pipelineSchema, v1SchemaNames } from '../apis/cairn/v1/schemas.js';
import { componentResolver, type JsonSchema } from './json-schema.js';
import { metaSchemas } from './meta-schemas.js';
import { deepFreeze } from './object.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { statusErrorOf } from '../../test/support/status-error.js';

// The schema of kube's test struct MergeItem (strategicpatch/patch_test.go and
// testdata/swagger-merge-item.json), as OpenAPI v3 components.
const ref = (name: string): JsonSchema => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });
const mergeList = (items: JsonSchema, strategy = 'merge'): JsonSchema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': strategy,
  'x-kubernetes-patch-merge-key': 'name',
});
const scalars = {
  name: { type: 'string' },
  value: { type: 'string' },
  other: { type: 'string' },
  simpleMap: { type: 'object', additionalProperties: { type: 'string' } },
  mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
  mergingList: mergeList(ref('mergeItem')),
  nonMergingList: { type: 'array', items: ref('mergeItem') },
} satisfies Record<string, JsonSchema>;
const resolveMergeItem = componentResolver({
  mergeItem: {
    type: 'object',
    properties: {
      ...scalars,
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      mergeItemPtr: mergeList(ref('mergeItem')),
      replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
      retainKeysMap: { ...ref('retainKeysMergeItem'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: mergeList(ref('mergeItem'), 'merge,retainKeys'),
    },
  },
  retainKeysMergeItem: { type: 'object', properties: scalars },
});
const mergeItem = ref('mergeItem');

const patchMergeItem = (original: unknown, patch: unknown) =>
  applyStrategicMergePatch(original as Record<string, unknown>, patch, mergeItem, resolveMergeItem);


/**
 * kube's test cases as data, in its shape: `twoWay` applied to `original` gives
 * `twoWayResult` (or `modified`), `threeWay` applied to `current` gives `result`.
 */
interface KubeCase {
  description: string;
  original?: unknown;
  twoWay?: unknown;
  modified?: unknown;
  twoWayResult?: unknown;
  current?: unknown;
  threeWay?: unknown;
  result?: unknown;
  expectedError?: string;
}

// From customStrategicMergePatchTestCaseData and customStrategicMergePatchRawTestCases.
const customCases = `
- description: unique scalars when merging lists
  original: {mergingIntList: [1, 2]}
  twoWay: {mergingIntList: [2, 3]}
  modified: {mergingIntList: [1, 2, 3]}
- description: delete map from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {$patch: delete}}
  modified: {simpleMap: {}}
- description: delete all items from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{$patch: replace}]}
  modified: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  twoWay: {mergingList: []}
  modified: {mergingList: []}
- description: delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {$patch: replace}
  modified: {}
- description: add key and delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {other: a, $patch: replace}
  modified: {other: a}
- description: delete all duplicate entries in a merging list
  original: {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]}
  modified: {mergingList: [{name: 2, value: a}]}
- description: retainKeys map can add a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {value: bar}}
  modified: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map can delete a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {value: null}}
  modified: {retainKeysMap: {name: foo}}
- description: retainKeys list can change a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: b}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: b}]}
- description: preserve the order from the patch in a merging list
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]}
  modified: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]}
- description: preserve the order from the patch in a merging list 2
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}]}
  modified: {mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}
- description: preserve the order from the patch in a merging int list
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1, 2]}
  modified: {mergingIntList: [3, 1, 2]}
- description: preserve the order from the patch in a merging int list 2
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1]}
  modified: {mergingIntList: [2, 3, 1]}
- description: $setElementOrder contains item that is not present in the list to be merged
  original: {mergingList: [{name: 1}, {name: 3}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  modified: {mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}
- description: $setElementOrder contains item that is not present in the int list to be merged
  original: {mergingIntList: [1, 3]}
  twoWay: {$setElementOrder/mergingIntList: [3, 2, 1]}
  modified: {mergingIntList: [3, 1]}
- description: should check if order in $setElementOrder and patch list match
  original: {mergingList: [{name: 1}, {name: 3}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  expectedError: doesn't match
- description: should check if order in $setElementOrder and patch int list match
  original: {mergingIntList: [1, 3, 2]}
  twoWay: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}
  expectedError: doesn't match
- description: missing merge key should error out
  original: {mergingList: [{name: 1, value: a}]}
  twoWay: {mergingList: [{value: b}]}
  expectedError: does not contain declared merge key
- description: $deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list
  original: {mergingIntList: [1, 2]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: [1, 2]}
- description: $deleteFromPrimitiveList on empty primitive list should not add the item to the list
  original: {mergingIntList: null}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: null}
- description: $deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list
  original: {foo: [bar]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {foo: [bar]}
- description: $deleteFromPrimitiveList should delete item from a list with merge patch strategy
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [2]}
  modified: {mergingIntList: [1, 3]}
- description: $deleteFromPrimitiveList should delete item from a list without merge patch strategy
  original: {nonMergingIntList: [1, 2, 3]}
  twoWay: {$deleteFromPrimitiveList/nonMergingIntList: [2]}
  modified: {nonMergingIntList: [1, 3]}
`;

// From createStrategicMergePatchTestCaseData (whose lists are sorted by merge key).
const createCases = `
- description: nil original
  twoWay: {name: 1, value: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field and delete field from map with conflict
  original: {name: 1}
  twoWay: {name: null, value: 1}
  modified: {value: 1}
  current: {name: a, other: a}
  threeWay: {name: null, value: 1}
  result: {value: 1, other: a}
- description: delete field from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {key2: null}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: 1, key2: 1, other: a}}
  threeWay: {simpleMap: {key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: replace list of scalars with conflict
  original: {nonMergingIntList: [1, 2]}
  twoWay: {nonMergingIntList: [2, 3]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 4]}
  threeWay: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: defined null values should propagate overwrite current fields (with conflict)
  original: {name: 2}
  twoWay: {name: 1, value: 1, other: null}
  twoWayResult: {name: 1, value: 1}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1, other: null}
  result: {name: 1, value: 1}
- description: nil patch with retainKeys map
  original: {name: a, retainKeysMap: {name: foo}}
  twoWay: {}
  modified: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, value: b, retainKeysMap: {name: foo}}
  threeWay: {}
  result: {name: a, value: b, retainKeysMap: {name: foo}}
`;

// From strategicMergePatchRawTestCases and replaceRawExtensionPatchTestCases.
const rawCases = `
- description: nested patch merge with empty list
  original: {name: hi}
  twoWay: {mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}
  twoWayResult: {name: hi, mergingList: [{name: hello}]}
  current: {name: hi, mergingList: [{name: hello2}]}
  threeWay:
    $setElementOrder/mergingList: [{name: hello}, {name: doesntexist}]
    mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]
  result: {name: hi, mergingList: [{name: hello}, {name: hello2}]}
- description: delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: add and delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 4]
    $deleteFromPrimitiveList/mergingIntList: [3]
    mergingIntList: [4]
  modified: {mergingIntList: [1, 2, 4]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: merge lists of maps
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  modified: {mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: add field to map in merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]}
- description: delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 1, $patch: delete}]}
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 1, $patch: delete}]}
  result: {mergingList: [{name: 2, other: b}]}
- description: delete missing map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 1, $patch: delete}]}
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 3, other: a}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 2}, {name: 1, $patch: delete}]}
  result: {mergingList: [{name: 2}, {name: 3, other: a}]}
- description: add map and delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]}
- description: add map and delete map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]}
- description: delete field from map in merging list
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: null}]}
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay: {$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: null}]}
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: replace non merging list nested in merging list
  original: {mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 2}, {name: 1}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 2, value: 2}, {name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 2}, {name: 1}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  result:
    mergingList:
      - {name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}, {name: 1, value: 1}]}
      - {name: 2, other: b}
- description: add map to merging list by pointer
  original: {mergeItemPtr: [{name: 1}]}
  twoWay: {$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 2}]}
  modified: {mergeItemPtr: [{name: 1}, {name: 2}]}
  current: {mergeItemPtr: [{name: 1, other: a}, {name: 3}]}
  threeWay: {$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 2}]}
  result: {mergeItemPtr: [{name: 1, other: a}, {name: 2}, {name: 3}]}
- description: add an item that already exists in current object in merging list
  original: {mergingList: [{name: 1, value: a}, {name: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 3}]}
  modified: {mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
  threeWay: {}
  result: {mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
- description: delete missing field from map in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: null}]}
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}, {name: 2, value: 2}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: add field to map in merging list nested in merging list with value conflict
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current:
    mergingList:
      - {name: 1, other: a, mergingList: [{name: 1, value: a, other: c}, {name: 2, value: b, other: d}]}
      - {name: 2, other: b}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
        name: 1
        mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
  result:
    mergingList:
      - {name: 1, other: a, mergingList: [{name: 1, value: 1, other: c}, {name: 2, value: 2, other: d}]}
      - {name: 2, other: b}
- description: add map to merging list by pointer with conflict
  original: {mergeItemPtr: [{name: 1}]}
  twoWay: {$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 2}]}
  modified: {mergeItemPtr: [{name: 1}, {name: 2}]}
  current: {mergeItemPtr: [{name: 3}]}
  threeWay: {$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 1}, {name: 2}]}
  result: {mergeItemPtr: [{name: 1}, {name: 2}, {name: 3}]}
- description: merge lists of scalars
  original: {mergingIntList: [1, 2]}
  twoWay: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3]}
  modified: {mergingIntList: [1, 2, 3]}
  current: {mergingIntList: [1, 2, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 3, 4]}
- description: add an item in a list of primitives and preserve order
  original: {mergingIntList: [1, 2]}
  twoWay: {$setElementOrder/mergingIntList: [3, 1, 2], mergingIntList: [3]}
  modified: {mergingIntList: [3, 1, 2]}
  current: {mergingIntList: [1, 4, 2]}
  threeWay: {$setElementOrder/mergingIntList: [3, 1, 2], mergingIntList: [3]}
  result: {mergingIntList: [3, 1, 4, 2]}
- description: delete an item in a list of primitives and preserve order
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1], $deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: [2, 1]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay: {$setElementOrder/mergingIntList: [2, 1], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [2, 1]}
- description: add multiple items in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  modified: {mergingList: [{name: 1}, {name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: add and delete an item in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
    mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]
  modified: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
    mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 1, other: a}]}
- description: set elements order in a list with server-only items 3
  original: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 4, value: 4}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  modified: {mergingList: [{name: 2, value: 2}, {name: 1}, {name: 4, value: 4}, {name: 3, value: 3}]}
  current:
    mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 7}, {name: 9}, {name: 8}, {name: 3, value: 3}, {name: 4, value: 4}]
  threeWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result:
    mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 7}, {name: 9}, {name: 8}, {name: 4, value: 4}, {name: 3, value: 3}]
- description: set elements order in a int list with server-only items 2
  original: {mergingIntList: [1, 2, 3, 4]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  modified: {mergingIntList: [2, 1, 4, 3]}
  current: {mergingIntList: [1, 2, 9, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  result: {mergingIntList: [2, 1, 9, 4, 3]}
- description: set elements order in a list with server-only items
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  modified: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}, {name: 9}]}
  threeWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}, {name: 9}]}
- description: set elements order in a list with server-only items 2
  original: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 4, value: 4}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  modified: {mergingList: [{name: 2, value: 2}, {name: 1}, {name: 4, value: 4}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 9}, {name: 3, value: 3}, {name: 4, value: 4}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result: {mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 9}, {name: 4, value: 4}, {name: 3, value: 3}]}
- description: add and delete an item in a int list and preserve order
  original: {mergingIntList: [1, 3, 2]}
  twoWay: {$setElementOrder/mergingIntList: [4, 2, 1], mergingIntList: [4], $deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: [4, 2, 1]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay: {$setElementOrder/mergingIntList: [4, 2, 1], mergingIntList: [4], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [4, 2, 1]}
- description: behavior of set element order for a merging list with duplicate
  original: {mergingList: [{name: 1}, {name: 2, value: dup1}, {name: 3}, {name: 2, value: dup2}, {name: 4}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]}
  twoWayResult: {mergingList: [{name: 2, value: dup1}, {name: 2, value: dup2}, {name: 1}, {name: 4}, {name: 3}]}
- description: behavior of set element order for a merging int list with duplicate
  original: {mergingIntList: [1, 2, 3, 2, 4]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3, 2]}
  twoWayResult: {mergingIntList: [2, 2, 1, 4, 3]}
- description: retainKeys map should clear defaulted field with conflict (discriminated union)
  original: {}
  twoWay: {retainKeysMap: {name: type2, other: bar}}
  modified: {retainKeysMap: {name: type2, other: bar}}
  current: {retainKeysMap: {name: type1, value: foo}}
  threeWay: {retainKeysMap: {$retainKeys: [name, other], name: type2, other: bar}}
  result: {retainKeysMap: {name: type2, other: bar}}
- description: retainKeys map adds an item in nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2]}}
  twoWay:
    retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}
  modified: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 4]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  threeWay:
    retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 4, 3]}}
- description: retainKeys map adds an item and deletes an item in nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  twoWay:
    retainKeysMap:
      $retainKeys: [mergingIntList, name]
      mergingIntList: [5]
      $deleteFromPrimitiveList/mergingIntList: [2]
      $setElementOrder/mergingIntList: [1, 3, 5]
  modified: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 5]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}
  threeWay:
    retainKeysMap:
      $retainKeys: [mergingIntList, name]
      mergingIntList: [5]
      $deleteFromPrimitiveList/mergingIntList: [2]
      $setElementOrder/mergingIntList: [1, 3, 5]
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 5, 4]}}
- description: retainKeys map changes an item in nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}]}}
  twoWay:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}, {name: b}]
      mergingList: [{name: b, value: bar}]
  modified: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}, {name: x}]}}
  threeWay:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}, {name: b}]
      mergingList: [{name: b, value: bar}]
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}, {name: x}]}}
- description: retainKeys map deletes nested non-merging list
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  current: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map deletes an item in nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  twoWay:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}]
      mergingList: [{name: b, $patch: delete}]
  modified: {retainKeysMap: {name: foo, mergingList: [{name: a}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}
  threeWay:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}]
      mergingList: [{name: b, $patch: delete}]
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: x}]}}
- description: retainKeys list of maps clears a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: delete and reorder in one list, reorder in another
  original: {mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}
  twoWay:
    $setElementOrder/mergingList: [{name: b}]
    $setElementOrder/mergeItemPtr: [{name: d}, {name: c}]
    mergingList: [{$patch: delete, name: a}]
  modified: {mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}
- description: replace RawExtension field and merge list
  original:
    name: my-object
    mergingList: [{name: 1}, {name: 3}]
    replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
  twoWayResult:
    name: my-object
    mergingList: [{name: 1}, {name: 2}, {name: 3}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
`;

// From TestUnknownField: fields the schema does not declare (kube's unstructured behaviour).
const unknownFieldCases = `
- description: discard nulls in nested and adds not nulls
  original: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
  twoWay: {complex_nullable: {key: {keynotnull: value, keynull: null}}}
  twoWayResult: {array: [1, 2, 3], complex: {nested: true}, complex_nullable: {key: {keynotnull: value}}, name: foo, scalar: true}
- description: filter nulls from nested slices
  original: {}
  twoWay: {complex_nullable: [{inner_one: {key_one: foo, key_two: null}}]}
  twoWayResult: {complex_nullable: [{inner_one: {key_one: foo}}]}
- description: not filter nulls from non-associative slice
  original: {}
  twoWay: {complex_nullable: [key1, null, key2]}
  twoWayResult: {complex_nullable: [key1, null, key2]}
- description: null values in original are preserved
  original: {complex: {key: null}, thing: null}
  twoWay: {nested: {value: 5}}
  twoWayResult: {complex: {key: null}, nested: {value: 5}, thing: null}
- description: removed only
  current: {name: foo, scalar: true, complex: {nested: true}, array: [1, 2, 3]}
  threeWay: {complex: null, scalar: null}
  result: {array: [1, 2, 3], name: foo}
- description: unknown maps merge and unknown lists are replaced
  current: {complex: {a: 1, b: [1, 2]}, array: [{name: x, value: 1}]}
  threeWay: {complex: {b: [3], c: 2}, array: [{name: x, other: 2}]}
  result: {complex: {a: 1, b: [3], c: 2}, array: [{name: x, other: 2}]}
`;

function applications(yaml: string): [string, unknown, unknown, KubeCase][] {
  return (parse(yaml) as KubeCase[]).flatMap((c) => [
    ...(c.twoWay === undefined ? [] : [[`${c.description} (two-way)`, c.original ?? {}, c.twoWay, c] as [string, unknown, unknown, KubeCase]]),
    ...(c.threeWay === undefined ? [] : [[`${c.description} (three-way)`, c.current, c.threeWay, c] as [string, unknown, unknown, KubeCase]]),
  ]);
}

describe('applyStrategicMergePatch follows kube on its test tables', () => {
  it.each([customCases, createCases, rawCases, unknownFieldCases].flatMap(applications))('%s', (name, original, patch, c) => {
    if (c.expectedError) {
      expect(statusErrorOf(() => patchMergeItem(original, patch)).message).toContain(c.expectedError);
      return;
    }
    const expected = name.endsWith('(two-way)') ? (c.twoWayResult ?? c.modified) : c.result;
    expect(patchMergeItem(original, patch)).toStrictEqual(expected);
  });
});

describe('applyStrategicMergePatch rejects what kube rejects', () => {
  it.each<[string, unknown, unknown, number, string]>([
    ['an unknown $patch in a map', { simpleMap: { a: '1' } }, { simpleMap: { $patch: 'drop' } }, 422, 'unknown patch type: drop in map: map[$patch:drop]'],
    ['$patch: merge in a map (only list items name it, and kube refuses it there too)', { simpleMap: {} }, { simpleMap: { $patch: 'merge' } }, 422, 'unknown patch type: merge'],
    ['$patch: merge in a list', { mergingList: [{ name: 'a' }] }, { mergingList: [{ $patch: 'merge' }] }, 422, 'merging lists cannot yet be specified in the patch'],
    ['an unknown $patch in a list item', { mergingList: [{ name: 'a' }] }, { mergingList: [{ name: 'a', $patch: 'keep' }] }, 422, 'unknown patch type: keep in map: map[$patch:keep name:a]'],
    ['$patch: delete without the merge key', { mergingList: [{ name: 'a' }] }, { mergingList: [{ $patch: 'delete' }] }, 422, 'map: map[$patch:delete] does not contain declared merge key: name'],
    ['$retainKeys that is not a list', { retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: 'name' } }, 400, 'invalid patch format of retainKeys'],
    ['a field $retainKeys does not retain', { retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: ['name'], value: 'b' } }, 400, 'invalid patch format of retainKeys'],
    ['$setElementOrder without a field', { mergingIntList: [1] }, { $setElementOrder: [1] }, 400, 'invalid patch format of setElementOrder list'],
    ['$deleteFromPrimitiveList with a misspelt prefix', { mergingIntList: [1] }, { '$deleteFromPrimitiveLists/mergingIntList': [1] }, 400, 'invalid patch format of primitive list'],
    ['$setElementOrder that is not a list', { mergingIntList: [1] }, { '$setElementOrder/mergingIntList': 1 }, 422, 'expected a []interface {}, but received a int64'],
    ['$setElementOrder items without the merge key', { mergingList: [{ name: 'a' }] }, { '$setElementOrder/mergingList': [{ value: 'a' }] }, 422, 'does not contain declared merge key: name'],
    ['a list of lists', { mergingIntList: [1] }, { mergingIntList: [[2]] }, 422, 'list element types are not identical: [[1] [[2]]]'],
    ['a merge list of lists', { mergingIntList: [] }, { mergingIntList: [[2]] }, 422, 'lists of lists are not supported'],
    ['a merge list of mixed items', { mergingIntList: [1] }, { mergingIntList: ['two'] }, 422, 'list element types are not identical'],
    ['a patch that is not an object', {}, [{ op: 'add' }], 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
  ])('%s', (_name, original, patch, code, message) => {
    const error = statusErrorOf(() => patchMergeItem(original, patch));
    expect(error.status.code).toBe(code);
    expect(error.status.reason).toBe(code === 400 ? 'BadRequest' : 'Invalid');
    expect(error.message).toContain(message);
  });
});

describe('applyStrategicMergePatch on the Pipeline schema', () => {
  const resolve = componentResolver({ ...metaSchemas, [v1SchemaNames.pipeline]: pipelineSchema });
  const patchPipeline = (original: unknown, patch: unknown) =>
    applyStrategicMergePatch(original as Record<string, unknown>, patch, pipelineSchema, resolve);
  const pipeline = parse(`
apiVersion: cairn.dev/v1
kind: Pipeline
metadata:
  name: ingest
  labels: {team: data, tier: batch}
  finalizers: [cairn.dev/logs]
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: u1}]
spec:
  replicas: 3
  steps:
  - name: fetch
    image: alpine:3.20
    command: [sh, -c, wget -qO- https://example.com]
    env: [{name: MODE, value: fast}, {name: LEVEL, value: '1'}]
  - {name: parse, image: alpine:3.20}
  - {name: load, image: alpine:3.20}
status:
  conditions:
  - {type: Ready, status: 'False', reason: Scaling}
  - {type: Progressing, status: 'True'}
`) as Record<string, unknown>;

  it('applies kubectl apply’s patch for a changed step, keeping the other steps and fields', () => {
    const patched = patchPipeline(pipeline, {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'parse' }, { name: 'load' }],
        steps: [{ name: 'parse', image: 'alpine:3.21' }],
      },
    }) as { spec: { steps: unknown[] }; metadata: Record<string, unknown> };
    expect(patched.spec.steps).toStrictEqual([
      (pipeline.spec as { steps: unknown[] }).steps[0],
      { name: 'parse', image: 'alpine:3.21' },
      { name: 'load', image: 'alpine:3.20' },
    ]);
    expect(patched.metadata.annotations).toStrictEqual({ 'kubectl.kubernetes.io/last-applied-configuration': '{}' });
    expect(patched.metadata.labels).toStrictEqual({ team: 'data', tier: 'batch' });
  });

  it('removes a step kubectl apply deletes and adds one in the applied order', () => {
    const patched = patchPipeline(pipeline, {
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'store' }, { name: 'load' }],
        steps: [{ name: 'store', image: 'minio' }, { name: 'parse', $patch: 'delete' }],
      },
    }) as { spec: { steps: { name: string }[] } };
    expect(patched.spec.steps.map((step) => step.name)).toStrictEqual(['fetch', 'store', 'load']);
  });

  it('merges env by name inside a step and replaces the atomic command', () => {
    const patched = patchPipeline(pipeline, {
      spec: {
        '$setElementOrder/steps': [{ name: 'fetch' }, { name: 'parse' }, { name: 'load' }],
        steps: [
          {
            name: 'fetch',
            command: ['sh', '-c', 'curl https://example.com'],
            '$setElementOrder/env': [{ name: 'DEBUG' }, { name: 'MODE' }, { name: 'LEVEL' }],
            env: [{ name: 'DEBUG', value: 'true' }, { name: 'MODE', value: 'slow' }],
          },
        ],
      },
    }) as { spec: { steps: Record<string, unknown>[] } };
    expect(patched.spec.steps[0]).toStrictEqual({
      name: 'fetch',
      image: 'alpine:3.20',
      command: ['sh', '-c', 'curl https://example.com'],
      env: [{ name: 'DEBUG', value: 'true' }, { name: 'MODE', value: 'slow' }, { name: 'LEVEL', value: '1' }],
    });
  });

  it('merges ObjectMeta like kube: finalizers as a set, ownerReferences by uid, labels as a map', () => {
    const patched = patchPipeline(pipeline, {
      metadata: {
        labels: { tier: null, stage: 'prod' },
        finalizers: ['example.com/cleanup'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'other', uid: 'u2' }],
      },
    }) as { metadata: Record<string, unknown> };
    expect(patched.metadata.labels).toStrictEqual({ team: 'data', stage: 'prod' });
    // Without $setElementOrder a new item no server item precedes in the patch goes first, as in kube.
    expect(patched.metadata.finalizers).toStrictEqual(['example.com/cleanup', 'cairn.dev/logs']);
    expect(patched.metadata.ownerReferences).toStrictEqual([
      { apiVersion: 'v1', kind: 'Secret', name: 'other', uid: 'u2' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1' },
    ]);
    const released = patchPipeline(pipeline, { metadata: { '$deleteFromPrimitiveList/finalizers': ['cairn.dev/logs'] } }) as {
      metadata: Record<string, unknown>;
    };
    expect(released.metadata.finalizers).toStrictEqual([]);
  });

  it('merges status conditions by type', () => {
    const patched = patchPipeline(pipeline, { status: { conditions: [{ type: 'Ready', status: 'True', reason: null }] } }) as {
      status: { conditions: unknown[] };
    };
    expect(patched.status.conditions).toStrictEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Progressing', status: 'True' },
    ]);
  });

  it('replaces the steps with $patch: replace', () => {
    const patched = patchPipeline(pipeline, { spec: { steps: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } }) as {
      spec: { steps: unknown[] };
    };
    expect(patched.spec.steps).toStrictEqual([{ name: 'only', image: 'x' }]);
  });
});

describe('applyStrategicMergePatch properties', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  // deepCopy (structuredClone) turns an own `__proto__` field into the prototype, so keep it out.
  const object = fc.dictionary(fc.string().filter((key) => key !== '__proto__'), json, { noNullPrototype: true });
  const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 });

  it('an empty patch changes nothing', () => {
    fc.assert(
      fc.property(object, (original) => {
        expect(patchMergeItem(original, {})).toStrictEqual(original);
      }),
    );
  });

  // MergeItems three levels deep, with names that collide so lists merge.
  const mergeItemFields = {
    name: fc.constantFrom('a', 'b', 'c'),
    value: fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)),
    simpleMap: fc.dictionary(fc.constantFrom('k1', 'k2'), fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)), {
      noNullPrototype: true,
    }),
    mergingIntList: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 }),
  };
  const leaf = fc.record(mergeItemFields, { requiredKeys: ['name'], noNullPrototype: true });
  const withLists = (items: fc.Arbitrary<Record<string, unknown>>) =>
    fc.record(
      { ...mergeItemFields, mergingList: fc.array(items, { maxLength: 3 }), nonMergingList: fc.array(items, { maxLength: 2 }) },
      { requiredKeys: ['name'], noNullPrototype: true },
    );
  const mergeItems = withLists(withLists(leaf));
  const frozenInside = (value: unknown): boolean =>
    typeof value === 'object' && value !== null && (Object.isFrozen(value) || Object.values(value).some(frozenInside));

  it('never mutates its inputs and shares nothing with them', () => {
    fc.assert(
      fc.property(mergeItems, mergeItems, (original, patch) => {
        const before = structuredClone([original, patch]);
        const result = patchMergeItem(deepFreeze(original), deepFreeze(patch));
        expect([original, patch]).toStrictEqual(before);
        expect(frozenInside(result)).toBe(false);
      }),
    );
  });

  it('orders a merged list as $setElementOrder says when it names every item', () => {
    fc.assert(
      fc.property(
        names.chain((original) => fc.tuple(fc.constant(original), fc.shuffledSubarray(original), names)),
        ([original, changed, order]) => {
          const all = [...new Set([...order, ...original])];
          const patched = patchMergeItem(
            { mergingList: original.map((name) => ({ name, value: 'old' })) },
            {
              '$setElementOrder/mergingList': all.map((name) => ({ name })),
              mergingList: all.filter((name) => changed.includes(name) || !original.includes(name)).map((name) => ({ name, value: 'new' })),
            },
          ) as { mergingList: { name: string }[] };
          expect(patched.mergingList.map((item) => item.name)).toStrictEqual(all);
        },
      ),
    );
  });
});
