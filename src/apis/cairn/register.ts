/**
 * The cairn.dev group: its resources and served versions. A kind is one file beside
 * this one and one line here; a version is one folder and one line in `versions.ts`.
 */
import type { ApiGroup } from '../api-resource.js';
import { runnerClassAdmission } from './admission.js';
import { groupName } from './group-name.js';
import fieldNumbers from './protobuf-field-numbers.json' with { type: 'json' };
import { pipelines } from './pipelines.js';
import { runnerClasses } from './runner-classes.js';
import { servedVersions } from './versions.js';

/** The cairn.dev group as served. */
export const cairnGroup: ApiGroup = {
  name: groupName,
  versions: servedVersions.map((v) => v.version),
  resources: [pipelines, runnerClasses],
  admission: runnerClassAdmission,
  protobuf: { fieldNumbers, fieldNumbersFile: 'src/apis/cairn/protobuf-field-numbers.json' },
};
