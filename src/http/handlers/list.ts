/** GET of a collection. */
import { fieldSelectorParam, labelSelectorParam, resourceVersionParam } from '../query.js';
import { respond } from '../respond.js';
import type { ResourceContext } from './resource-context.js';

/** The field selectors every resource accepts besides its own. */
export function selectableFields(rc: ResourceContext): string[] {
  return ['metadata.name', ...(rc.resource.namespaced ? ['metadata.namespace'] : []), ...rc.resource.selectableFields];
}

/** Answers `list`. `limit` is not honoured yet, so no `continue` is ever returned. */
export async function listHandler(rc: ResourceContext): Promise<void> {
  resourceVersionParam(rc.query);
  const page = await rc.store.list(rc.request.namespace, {
    labelSelector: labelSelectorParam(rc.query),
    fieldSelector: fieldSelectorParam(rc.query, selectableFields(rc)),
    resourceVersion: rc.query.get('resourceVersion') ?? '',
  });
  const { group, listKind } = rc.resource;
  respond(
    rc.ctx,
    200,
    {
      apiVersion: `${group}/${rc.request.version}`,
      kind: listKind,
      metadata: { resourceVersion: page.resourceVersion },
      items: page.items,
    },
    rc.format,
  );
}
