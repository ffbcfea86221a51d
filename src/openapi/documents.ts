/**
 * Every OpenAPI document the server publishes, built once from the served groups and
 * the endpoints the registry's table serves:
 * the v3 group-version documents with their content hashes, the v3 root that lists
 * them, and the v2 document derived from them. The server serves these and
 * `npm run openapi` commits them, so both come from here.
 */
import type { ApiEndpoint } from '../apis/api-endpoint.js';
import type { ApiGroup } from '../apis/api-resource.js';
import { swaggerDocument, type SwaggerDocument } from './v2.js';
import { documentHash, groupVersionDocument, openApiRoot, type OpenApiV3Document } from './v3.js';
import { versionInfo } from '../machinery/version-info.js';

/** A v3 group-version document and the hash that names its current content. */
export interface GroupVersionDocument {
  readonly document: OpenApiV3Document;
  readonly hash: string;
}

/** The published documents. */
export interface OpenApiDocuments {
  /** By path below `/openapi/v3/`: `apis/cairn.dev/v1`. */
  readonly v3: ReadonlyMap<string, GroupVersionDocument>;
  /** `/openapi/v3`. */
  readonly v3Root: object;
  /** `/openapi/v2`. */
  readonly v2: SwaggerDocument;
}

/** Builds the documents of `groups`, whose served endpoints (the registry's endpoint table) are `endpoints`. */
export function openApiDocuments(groups: readonly ApiGroup[], endpoints: readonly ApiEndpoint[]): OpenApiDocuments {
  const v3 = new Map<string, GroupVersionDocument>();
  for (const group of groups) {
    for (const version of group.versions) {
      const document = groupVersionDocument(group, version, endpoints);
      v3.set(`apis/${group.name}/${version}`, { document, hash: documentHash(document) });
    }
  }
  const v2 = swaggerDocument(
    [...v3.values()].map((entry) => entry.document),
    { title: 'Cairn', version: versionInfo().gitVersion },
  );
  return { v3, v3Root: openApiRoot(v3), v2 };
}
