/**
 * `npm run generate-client`: regenerates the client's types of every served version
 * from the committed OpenAPI documents (run `npm run openapi` first when the API changed).
 */
import { writeFile } from 'node:fs/promises';
import { generateClientTypes, generatedTypes } from './generate-types.js';

const root = new URL('../../', import.meta.url);
for (const generated of generatedTypes) {
  await writeFile(new URL(generated.file, root), await generateClientTypes(root, generated));
  console.log(generated.file);
}
