/**
 * The committed Protocol Buffers files: `proto/<group>/<version>/generated.proto`
 * (kube's layout, `k8s.io/api/apps/v1/generated.proto`) and each group's field-number
 * map. What `npm run proto` writes and what a test compares with the code.
 */
import { join } from 'node:path';
import type { ApiGroup } from '../apis/api-resource.js';
import { groupMessages } from '../apis/protobuf.js';
import { packageOf } from '../machinery/protobuf/messages.js';
import { renderProto } from '../machinery/protobuf/schema-messages.js';
import { filesIn, writeGeneratedFiles } from './generated-files.js';

/** The folder of the `.proto` files, relative to the repository. */
export const protoDir = 'proto';

/** The file contents by path relative to the repository: the `.proto` files and the field-number maps. */
export function protoFiles(groups: readonly ApiGroup[]): ReadonlyMap<string, string> {
  const files = new Map<string, string>();
  for (const group of groups) {
    if (!group.protobuf) continue;
    const { messages, numbers } = groupMessages(group, group.protobuf.fieldNumbers);
    for (const version of group.versions) {
      const pkg = packageOf(group.resources.flatMap((r) => r.versions).find((v) => v.version === version)!.schemaName);
      files.set(
        join(protoDir, group.name, version, 'generated.proto'),
        renderProto(
          pkg,
          messages.filter((m) => packageOf(m.name) === pkg),
        ),
      );
    }
    files.set(group.protobuf.fieldNumbersFile, `${JSON.stringify(numbers, null, 2)}\n`);
  }
  return files;
}

/** Every `.proto` file below `dir`, relative to `root`. */
export const protoFilesIn = (root: string, dir = protoDir): Promise<string[]> => filesIn(root, dir, '.proto');

/** Writes the files of `groups` under `root`, removing `.proto` files of versions no longer served; returns the paths written. */
export const writeProtoFiles = (root: string, groups: readonly ApiGroup[]): Promise<string[]> =>
  writeGeneratedFiles(root, protoDir, '.proto', protoFiles(groups));
