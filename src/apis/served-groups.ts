/**
 * The groups this server serves: discovery, OpenAPI, the registry and the protobuf
 * scheme are built from them. A group is one line here.
 */
import type { ApiGroup } from './api-resource.js';
import { cairnGroup } from './cairn/register.js';

export const servedGroups: readonly ApiGroup[] = [cairnGroup];
