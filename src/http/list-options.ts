/**
 * The options of list and watch requests, decoded from the query and checked as
 * kube-apiserver's ValidateListOptions does (422 on `ListOptions.meta.k8s.io`).
 */
import type { ApiResource } from '../apis/api-resource.js';
import { invalid, type FieldError } from '../machinery/errors.js';
import type { FieldSelector } from '../machinery/field-selector.js';
import type { ListOptions, ResourceVersionMatch, WatchOptions } from '../registry/request-options.js';
import { booleanParam, fieldSelectorParam, integerParam, labelSelectorParam, resourceVersionParam, type Query } from './query.js';

/** The field selectors every resource accepts besides its own. */
export function selectableFields(resource: ApiResource): string[] {
  return ['metadata.name', ...(resource.namespaced ? ['metadata.namespace'] : []), ...resource.selectableFields];
}

const forbidden = (field: string, message: string): FieldError => ({ field, reason: 'FieldValueForbidden', message: `Forbidden: ${message}` });
const notSupported = (field: string, value: string, supported: readonly string[]): FieldError => ({
  field,
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: "${value}": supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
});

function matchParam(query: Query): string | undefined {
  const value = query.get('resourceVersionMatch');
  return value === null || value === '' ? undefined : value;
}

function listErrors(o: { resourceVersion: string; match?: string; continue?: string; sendInitialEvents?: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  if (o.match !== undefined) {
    if (o.resourceVersion === '') errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (o.match === 'Exact' && o.resourceVersion === '0') {
      errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    } else if (o.match !== 'Exact' && o.match !== 'NotOlderThan') {
      errors.push(notSupported('resourceVersionMatch', o.match, ['Exact', 'NotOlderThan']));
    }
  }
  if (o.sendInitialEvents !== undefined) errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errors;
}

function watchErrors(o: { match?: string; continue?: string; sendInitialEvents?: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  if (o.sendInitialEvents !== undefined && o.match !== 'NotOlderThan') {
    errors.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (o.match !== undefined) {
    if (o.sendInitialEvents === undefined) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (o.match !== 'NotOlderThan') errors.push(notSupported('resourceVersionMatch', o.match, ['NotOlderThan']));
    if (o.continue) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errors;
}

/** Adds `metadata.name=<name>` for a watch of one object (`/watch/…/pipelines/NAME`). */
function withName(selector: FieldSelector | undefined, name: string | undefined): FieldSelector | undefined {
  if (name === undefined) return selector;
  return [...(selector ?? []), { field: 'metadata.name', operator: '=', value: name }];
}

/** Decodes and validates the options of a list (`watch` false) or a watch. */
export function listOptions(query: Query, resource: ApiResource, watch: boolean, name?: string): WatchOptions {
  const resourceVersion = resourceVersionParam(query);
  const match = matchParam(query);
  const continueToken = query.get('continue') ?? undefined;
  const sendInitialEvents = booleanParam(query, 'sendInitialEvents');
  const errors = watch
    ? watchErrors({ match, continue: continueToken, sendInitialEvents })
    : listErrors({ resourceVersion, match, continue: continueToken, sendInitialEvents });
  if (errors.length) throw invalid('ListOptions', 'meta.k8s.io', '', errors);
  const limit = integerParam(query, 'limit');
  const options: ListOptions = {
    labelSelector: labelSelectorParam(query),
    fieldSelector: withName(fieldSelectorParam(query, selectableFields(resource)), name),
    resourceVersion,
    resourceVersionMatch: match as ResourceVersionMatch | undefined,
    // As in kube, a limit of 0 means no limit.
    limit: limit === 0 ? undefined : limit,
    continue: continueToken || undefined,
    timeoutSeconds: integerParam(query, 'timeoutSeconds'),
  };
  return watch ? { ...options, sendInitialEvents } : options;
}

/** `allowWatchBookmarks`. */
export function allowWatchBookmarksParam(query: Query): boolean {
  return booleanParam(query, 'allowWatchBookmarks') ?? false;
}
