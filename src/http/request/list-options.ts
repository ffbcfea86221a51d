/**
 * The options of list and watch requests, decoded from the query and checked as
 * kube-apiserver's ValidateListOptions does (422 on `ListOptions.meta.k8s.io`).
 */
import { invalid, type FieldError } from '../../machinery/errors.js';
import type { FieldSelector } from '../../machinery/selectors/field-selector.js';
import type { ListOptions, ResourceVersionMatch, WatchOptions } from '../../registry/request-options.js';
import { booleanParam, fieldSelectorParam, integerParam, labelSelectorParam, resourceVersionParam, signedIntegerParam, type Query } from './query.js';
import type { RequestScope } from '../../registry/request-scope.js';
import { fieldPath, forbidden, notSupported } from '../../machinery/field-errors.js';

const match = fieldPath('resourceVersionMatch');

/** `resourceVersionMatch`, undefined when unset or empty. */
export function matchParam(query: Query): string | undefined {
  const value = query.get('resourceVersionMatch');
  return value === null || value === '' ? undefined : value;
}

/** The checks of `resourceVersionMatch` a list and a get share (a get has no `continue`). */
export function matchErrors(o: { resourceVersion: string; match?: string; continue?: string }): FieldError[] {
  if (o.match === undefined) return [];
  const errors: FieldError[] = [];
  if (o.resourceVersion === '') errors.push(forbidden(match, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
  if (o.continue) errors.push(forbidden(match, 'resourceVersionMatch is forbidden when continue is provided'));
  if (o.match === 'Exact' && o.resourceVersion === '0') {
    errors.push(forbidden(match, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  } else if (o.match !== 'Exact' && o.match !== 'NotOlderThan') {
    // kube lists the empty value too (it means "unset"), last.
    errors.push(notSupported(match, o.match, ['Exact', 'NotOlderThan', '']));
  }
  return errors;
}

function listErrors(o: { resourceVersion: string; match?: string; continue?: string; sendInitialEvents?: boolean }): FieldError[] {
  const errors = matchErrors(o);
  if (o.sendInitialEvents !== undefined) errors.push(forbidden(fieldPath('sendInitialEvents'), 'sendInitialEvents is forbidden for list'));
  return errors;
}

function watchErrors(o: { match?: string; continue?: string; sendInitialEvents?: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  if (o.sendInitialEvents !== undefined && o.match !== 'NotOlderThan') {
    errors.push(forbidden(match, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (o.match !== undefined) {
    if (o.sendInitialEvents === undefined) errors.push(forbidden(match, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (o.match !== 'NotOlderThan') errors.push(notSupported(match, o.match, ['NotOlderThan']));
    if (o.continue) errors.push(forbidden(match, 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errors;
}

/** Adds `metadata.name=<name>` for a watch of one object (`/watch/…/pipelines/NAME`). */
function withName(selector: FieldSelector | undefined, name: string | undefined): FieldSelector | undefined {
  if (name === undefined) return selector;
  return [...(selector ?? []), { field: 'metadata.name', operator: '=', value: name }];
}

/**
 * kube's `SetListOptionsDefaults` with the WatchList feature (on by default in 1.34): a
 * watch from resourceVersion unset or "0" that names neither sendInitialEvents nor
 * resourceVersionMatch is a watch list, `sendInitialEvents=true` and `NotOlderThan`, so
 * its initial events end with the `k8s.io/initial-events-end` bookmark when the client
 * allows bookmarks. A list is left as sent.
 */
function withWatchListDefaults(
  watch: boolean,
  o: { resourceVersion: string; match?: string; sendInitialEvents?: boolean },
): { match?: string; sendInitialEvents?: boolean } {
  const legacy = o.resourceVersion === '' || o.resourceVersion === '0';
  if (!watch || !legacy || o.sendInitialEvents !== undefined || o.match !== undefined) return o;
  return { match: 'NotOlderThan', sendInitialEvents: true };
}

/** Decodes, defaults and validates the options of a list (`watch` false) or a watch; field selectors are converted to the storage version's labels. */
export function listOptions(query: Query, scope: Pick<RequestScope, 'fieldLabel'>, watch: boolean, name?: string): WatchOptions {
  const resourceVersion = resourceVersionParam(query);
  const continueToken = query.get('continue') ?? undefined;
  const { match, sendInitialEvents } = withWatchListDefaults(watch, {
    resourceVersion,
    match: matchParam(query),
    sendInitialEvents: booleanParam(query, 'sendInitialEvents'),
  });
  const errors = watch
    ? watchErrors({ match, continue: continueToken, sendInitialEvents })
    : listErrors({ resourceVersion, match, continue: continueToken, sendInitialEvents });
  if (errors.length) throw invalid('ListOptions', 'meta.k8s.io', '', errors);
  const limit = signedIntegerParam(query, 'limit');
  const options: ListOptions = {
    labelSelector: labelSelectorParam(query),
    fieldSelector: withName(fieldSelectorParam(query, scope.fieldLabel), name),
    resourceVersion,
    resourceVersionMatch: match as ResourceVersionMatch | undefined,
    // As in kube, a limit of 0 or less means no limit (and no paging).
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continue: continueToken || undefined,
    timeoutSeconds: integerParam(query, 'timeoutSeconds'),
  };
  return watch ? { ...options, sendInitialEvents } : options;
}

/** `allowWatchBookmarks`. */
export function allowWatchBookmarksParam(query: Query): boolean {
  return booleanParam(query, 'allowWatchBookmarks') ?? false;
}
