/**
 * The committed API reference, `docs/api-reference.md`: what `npm run api-reference`
 * writes and what a test compares with the code. Formatted as `prettier --check` wants
 * the repository's Markdown, so the generated file passes it.
 */
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { ApiGroup } from '../apis/api-resource.js';
import { apiReference } from '../openapi/api-reference.js';

/** Where the reference is committed, relative to the repository. */
export const apiReferencePath = join('docs', 'api-reference.md');

/** The file's content for `groups`. */
export async function apiReferenceFile(groups: readonly ApiGroup[]): Promise<string> {
  const options = await resolveConfig(join(import.meta.dirname, '..', '..', apiReferencePath));
  return format(apiReference(groups), { ...options, parser: 'markdown' });
}
