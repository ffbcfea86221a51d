/**
 * The committed OpenAPI documents under `openapi/`: what `npm run openapi` writes and
 * what a test compares with the code, named as kube names its committed specs
 * (`api/openapi-spec/swagger.json`, `api/openapi-spec/v3/apis__apps__v1_openapi.json`).
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { ApiGroup } from '../apis/api-resource.js';
import { openApiDocuments } from '../openapi/documents.js';

// Pretty-printed with a trailing newline, so the committed files diff well.
const pretty = (document: object): string => `${JSON.stringify(document, null, 2)}\n`;

/** The file contents, by path relative to the output folder. */
export function openApiFiles(groups: readonly ApiGroup[]): ReadonlyMap<string, string> {
  const documents = openApiDocuments(groups);
  const files = new Map<string, string>([
    ['swagger.json', pretty(documents.v2)],
    ['v3/root.json', pretty(documents.v3Root)],
  ]);
  for (const [path, { document }] of documents.v3) files.set(`v3/${path.replaceAll('/', '__')}_openapi.json`, pretty(document));
  return files;
}

/** Every `.json` file below `dir`, relative to it; none when `dir` does not exist. */
export async function jsonFilesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Writes the files of `groups` into `dir` and removes the documents of versions no longer served; returns the paths written. */
export async function writeOpenApiFiles(dir: string, groups: readonly ApiGroup[]): Promise<string[]> {
  const files = openApiFiles(groups);
  for (const stale of (await jsonFilesIn(dir)).filter((path) => !files.has(path))) await rm(join(dir, stale));
  for (const [path, content] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return [...files.keys()];
}
