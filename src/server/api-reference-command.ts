/**
 * `npm run api-reference [-- --out FILE]`: writes the API reference for users,
 * generated from the served groups, to `docs/api-reference.md` (or FILE). A test fails
 * when the committed file is stale.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { apiReferenceFile, apiReferencePath } from './api-reference-file.js';
import { servedGroups } from './server.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: apiReferencePath } } });
await writeFile(values.out, await apiReferenceFile(servedGroups));
console.log(values.out);
