/**
 * `npm run generate-client [-- --out FILE]`: regenerates the client's types from the
 * committed OpenAPI document (run `npm run openapi` first when the API changed).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { generateClientTypes, generatedTypesPath } from './generate-types.js';

const root = new URL('../../', import.meta.url);
const { values } = parseArgs({ options: { out: { type: 'string', default: generatedTypesPath } } });
await writeFile(values.out, await generateClientTypes(root));
console.log(values.out);
