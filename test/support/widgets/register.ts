/**
 * A throwaway group for tests only, `widgets.test`, whose kind Widget is served in two
 * versions: adding v2 was its folder and the one line marked below.
 */
import type { ApiGroup, ApiResource } from '../../../src/apis/api-resource.js';
import { kindStrategy } from '../../../src/apis/cairn/strategy.js';
import { valueAt, type KubeObject } from '../../../src/machinery/meta/object.js';
import { widgetV1Schema, widgetV1SchemaName } from './v1/schemas.js';
import { widgetV2 } from './v2/register.js';

const cell = (path: string) => (object: KubeObject) => valueAt(object, path) ?? null;

/** Widgets: namespaced, stored in v1. */
export const widgets: ApiResource = {
  group: 'widgets.test',
  plural: 'widgets',
  singular: 'widget',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: true,
  shortNames: [],
  categories: [],
  versions: [
    { version: 'v1', schema: widgetV1Schema, schemaName: widgetV1SchemaName },
    widgetV2, // the registration line of v2
  ],
  preferredVersion: 'v1',
  storageVersion: 'v1',
  strategy: kindStrategy({ validate: () => [], namespaced: true, selectableFields: ['spec.size'], apiVersions: ['widgets.test/v1', 'widgets.test/v2'] }),
  printerColumns: [{ name: 'Name', type: 'string', priority: 0, description: 'Name', jsonPath: '.metadata.name', cell: cell('metadata.name') }],
  selectableFields: ['spec.size'],
  subresources: { status: false },
};

/** The widgets.test group. */
export const widgetsGroup: ApiGroup = { name: 'widgets.test', versions: ['v1', 'v2'], resources: [widgets] };
