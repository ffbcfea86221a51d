/** widgets.test/v2, as one ResourceVersion. */
import type { ResourceVersion } from '../../../../src/apis/api-resource.js';
import { fieldLabel, fromStorage, toStorage } from './conversion.js';
import { defaultWidget } from './defaults.js';
import { widgetV2Schema, widgetV2SchemaName } from './schemas.js';

/** v2 of Widgets. */
export const widgetV2: ResourceVersion = {
  version: 'v2',
  schema: widgetV2Schema,
  schemaName: widgetV2SchemaName,
  defaults: defaultWidget,
  toStorage,
  fromStorage,
  fieldLabel,
};
