/**
 * `npm run openapi [-- --out DIR]`: writes the OpenAPI v2 and v3 documents of the
 * served groups into `openapi/` (or DIR), where they are committed for clients and
 * the typed client generator. A test fails when the committed files are stale.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeOpenApiFiles } from './openapi-files.js';
import { servedGroups } from './server.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'openapi' } } });
const written = await writeOpenApiFiles(values.out, servedGroups);
for (const path of written) console.log(join(values.out, path));
