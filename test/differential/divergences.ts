/**
 * Where Cairn answers differently from kube-apiserver's custom resource handlers on
 * purpose: each case of the differential table listed here must differ (the test fails
 * once it no longer does, so the list cannot go stale), and the "Fidelity to
 * kube-apiserver" section of docs/api.md shows it (`npx tsx test/differential/fidelity-section.ts` writes it).
 *
 * A reason is one of {@link reasons}: most are where a custom resource is not what
 * Cairn's kinds are, which are served and validated as a built-in kind is; the others are
 * kube answers that quote Go internals, or a 500 that Cairn gives as a 400.
 */

/** Why Cairn differs, each said once. */
export const reasons = {
  schemaMessages:
    'Schema validation words a failed constraint its own way (`must be >= 0`, the value after `Invalid value:`) where a CRD says `should be greater than or equal to 0` and names the JSON type; a CRD also checks its scale paths again (a second cause on `.spec.replicas`). Status, reason and field paths are the same.',
  duplicateKeys:
    'A duplicate key of a list-map is named as a built-in kind names it (`spec.steps[1].name: Duplicate value: "s"`, as a Pod names a container); a CRD names the whole item (`spec.steps[1]: Duplicate value: {"name":"s"}`).',
  references:
    'A Pipeline’s references are checked as a built-in kind checks its own: `spec.runnerClassName` must be a valid RunnerClass name (422) and name one that exists (cairn.dev’s admission plugin, 403). A CRD has no such rules.',
  typedDecoding:
    'A body of another kind is refused when it is decoded (400 BadRequest), as a built-in kind’s typed decoder does; a custom resource accepts any kind there and its validation refuses it (422).',
  parserMessages:
    'A body that does not parse: kube’s message quotes Go’s encoding/json or go-yaml error (and a summary of the body); Cairn’s parsers word it differently. Status and reason are the same.',
  protobuf: 'Cairn serves cairn.dev in Protocol Buffers, as kube serves built-in kinds; custom resources have no protobuf encoding (406).',
  postToObject:
    'POST to an object’s path: kube’s custom resource handler creates the body’s object (201); built-in kinds, and Cairn, answer 405 MethodNotAllowed.',
  unknownSubresource:
    'An unknown subresource: kube’s custom resource handler answers NotFound naming the object; built-in kinds, and Cairn, answer the generic 404 (`the server could not find the requested resource`).',
  finalizerWarning:
    'kube warns about a finalizer name without a domain only for custom resources (apiextensions’ validator); Cairn accepts it without a warning.',
  unconditionalUpdate:
    'A PUT without `metadata.resourceVersion` is an unconditional update, as for most built-in kinds; custom resources refuse it (422, `must be specified for an update`).',
  deleteAnswer:
    'A DELETE that removes the object answers 200 with the object, as built-in kinds registered with `ReturnDeletedObject` (Pods, …) do; custom resources answer a `Status` of Success.',
  no500:
    'Bad input that kube answers with 500 InternalError (its storage, its field manager or its options decoder fails on it) is a 400 BadRequest in Cairn, which never answers 500 to bad input (docs/architecture.md).',
  duplicateCauses:
    'kube’s custom resource strategy validates a metadata update twice and lists the cause twice (and prints a Go `[]string{…}`); Cairn lists it once.',
  goInternals:
    'kube’s message names Go types or its scheme (`(*unstructured.UnstructuredList)`, `no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:110"`), which Cairn has none of.',
  scaleValidation:
    'A Scale is validated as a built-in kind’s `/scale` validates it (`Scale.autoscaling "a" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`); kube validates a custom resource once the Scale is mapped onto it.',
  scaleTable:
    'A Table of `/scale` has the default columns (NAME, CREATED AT), as a built-in kind’s; kube gives custom resources’ Scales columns of their own (DESIRED, AVAILABLE).',
  scaleApply:
    'Apply to `/scale` is refused (415: the Scale takes patches, not applied configurations); kube’s custom resource handler fails on it with a 500 (`request to convert CR to an invalid group/version: autoscaling/v1`).',
  scaleManagedFieldsTime:
    'A write through `/scale` stamps its managedFields entry with a time, as every write does; kube’s scale handler takes the time from the object’s own entry of that manager, so the entry of a manager’s first scale has none (and sorts first).',
  managedFieldsReset:
    'A PUT with `managedFields: []` resets them, as for a built-in kind (apimachinery’s `isResetManagedFields`), and Cairn then records the fields that write set; a built-in kind records none until the next apply (its skip-non-applied manager), and a custom resource, whose metadata coercion drops the empty list, resets nothing.',
  typedDefaults:
    'A body without `kind` or `apiVersion` takes them from the URL, as a built-in kind’s typed decoder does (`gvkWithDefaults`); a custom resource’s unstructured decoding refuses it (400).',
  methodNotAllowed:
    'PUT or PATCH of a collection is 405 MethodNotAllowed, as kube’s router answers for a built-in kind; the custom resource handler answers 400 `name must be provided`.',
  patchedScaleQuote:
    'A strict decoding error in a patch of `/scale` quotes the patched Scale as Cairn holds it; kube quotes its internal Scale, with managedFields and Go’s struct order. Status, reason, field and detail are the same.',
  exactGet:
    'A GET takes `resourceVersionMatch=Exact` as a list does and answers the object as it was at that resourceVersion (docs/api.md, Reading the past); kube’s GetOptions has no `resourceVersionMatch`, and kube answers the newest object.',
  strategicMerge:
    'Strategic merge patch is served (the schemas carry patch strategies and merge keys, as built-in kinds’ do); custom resources refuse it with 415, which also lists one media type fewer.',
} as const;

/** The cases that differ on purpose, and why. */
export const divergences: Readonly<Record<string, string>> = {
  'create: another kind': reasons.typedDecoding,
  'create: no kind': reasons.typedDefaults,
  'create: no apiVersion': reasons.typedDefaults,
  'method: PATCH of the collection': reasons.methodNotAllowed,
  'method: PUT of the collection': reasons.methodNotAllowed,
  'scale: merge patch of replicas as a string': reasons.patchedScaleQuote,
  'update: another kind': reasons.typedDecoding,
  'create: malformed JSON is 400': reasons.parserMessages,
  'create: an empty body is 400': reasons.parserMessages,
  'create: a JSON array is 400': reasons.parserMessages,
  'create: a JSON string is 400': reasons.parserMessages,
  'update: malformed JSON is 400': reasons.parserMessages,
  'patch: merge, malformed body is 400': reasons.parserMessages,
  'patch: merge, a JSON array is 400': reasons.parserMessages,
  'apply: malformed YAML is 400': reasons.parserMessages,
  'create: replicas -1 is 422': reasons.schemaMessages,
  'create: replicas as a string is 422': reasons.schemaMessages,
  'create: replicas 1.5 is 422': reasons.schemaMessages,
  'create: replicas above int32 is 422': reasons.schemaMessages,
  'create: an empty step name is 422': reasons.schemaMessages,
  'create: steps not a list is 422': reasons.schemaMessages,
  'create: spec not an object is 422': reasons.schemaMessages,
  'update: replicas -1 is 422': reasons.schemaMessages,
  'patch: merge to an invalid value is 422': reasons.schemaMessages,
  'patch: json to an invalid value is 422': reasons.schemaMessages,
  'apply: an invalid value is 422': reasons.schemaMessages,
  'create: two steps of one name are 422': reasons.duplicateKeys,
  'create: two env variables of one name are 422': reasons.duplicateKeys,
  'status: put of duplicate condition types is 422': reasons.duplicateKeys,
  'create: a runnerClassName with a slash': reasons.references,
  'create: a RunnerClass that does not exist': reasons.references,
  'get: Accept protobuf': reasons.protobuf,
  'get: resourceVersionMatch=Exact at the create, after an update': reasons.exactGet,
  'create: POST to an object’s path': reasons.postToObject,
  'get: an unknown subresource': reasons.unknownSubresource,
  'create: a finalizer without a domain': reasons.finalizerWarning,
  'update: without resourceVersion': reasons.unconditionalUpdate,
  'delete: answers the object': reasons.deleteAnswer,
  'watch: resourceVersion=abc': reasons.no500,
  'create: a resourceVersion in the body': reasons.no500,
  'apply: an unknown field under Strict': reasons.no500,
  'delete: a malformed body': reasons.no500,
  'delete: a body of another kind': reasons.no500,
  'patch: merge changing the uid': reasons.duplicateCauses,
  'delete: a finalizer cannot be added to a deleting object': reasons.duplicateCauses,
  'list: as PartialObjectMetadata (not List) is 406': reasons.goInternals,
  'scale: put of another kind': reasons.goInternals,
  'scale: put of -1 replicas is 422': reasons.scaleValidation,
  'scale: as a Table': reasons.scaleTable,
  'scale: apply': reasons.scaleApply,
  'scale: put': reasons.scaleManagedFieldsTime,
  'update: emptying managedFields clears them': reasons.managedFieldsReset,
  'patch: strategic merge': reasons.strategicMerge,
  'patch: Content-Type application/json is 415': reasons.strategicMerge,
  'webhook: strategic merge patch': reasons.strategicMerge,
};
