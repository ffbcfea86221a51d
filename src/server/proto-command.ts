/**
 * `npm run proto`: writes the `.proto` files of the served groups under `proto/` and
 * their field-number maps, numbering new fields and keeping every number once given.
 * A test fails when the committed files are stale.
 */
import { writeProtoFiles } from './proto-files.js';
import { servedGroups } from './server.js';

for (const path of await writeProtoFiles('.', servedGroups)) console.log(path);
