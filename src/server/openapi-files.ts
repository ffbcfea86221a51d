/**
 * The committed OpenAPI documents under `openapi/`: what `npm run openapi` writes and
 * what a test compares with the code, named as kube names its committed specs
 * (`api/openapi-spec/swagger.json`, `api/openapi-spec/v3/apis__apps__v1_openapi.json`).
 */
import type { ApiGroup } from '../apis/api-resource.js';
import { openApiDocuments } from '../openapi/documents.js';
import { endpointTable } from '../registry/endpoints.js';
import { filesIn, writeGeneratedFiles } from './generated-files.js';

// Pretty-printed with a trailing newline, so the committed files diff well.
const pretty = (document: object): string => `${JSON.stringify(document, null, 2)}\n`;

/** The file contents, by path relative to the output folder. */
export function openApiFiles(groups: readonly ApiGroup[]): ReadonlyMap<string, string> {
  const documents = openApiDocuments(groups, endpointTable(groups).all);
  const files = new Map<string, string>([
    ['swagger.json', pretty(documents.v2)],
    ['v3/root.json', pretty(documents.v3Root)],
  ]);
  for (const [path, { document }] of documents.v3) files.set(`v3/${path.replaceAll('/', '__')}_openapi.json`, pretty(document));
  return files;
}

/** Every `.json` file below `dir`, relative to it; none when `dir` does not exist. */
export const jsonFilesIn = (dir: string): Promise<string[]> => filesIn(dir, '.', '.json');

/** Writes the files of `groups` into `dir` and removes the documents of versions no longer served; returns the paths written. */
export const writeOpenApiFiles = (dir: string, groups: readonly ApiGroup[]): Promise<string[]> => writeGeneratedFiles(dir, '.', '.json', openApiFiles(groups));
