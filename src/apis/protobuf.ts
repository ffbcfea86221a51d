/**
 * The Protocol Buffers messages of the groups' kinds in every served version, made from
 * their schemas (`src/machinery/protobuf/schema-messages.ts`) with each group's
 * committed field numbers, and the scheme that writes and reads them beside
 * Kubernetes' own kinds. A group without field numbers has no protobuf, as kube
 * serves none for custom resources.
 */
import type { ApiGroup } from './api-resource.js';
import { kubeKinds } from '../machinery/protobuf/kube-messages.js';
import type { MessageDefinition, ProtobufKind } from '../machinery/protobuf/messages.js';
import { ProtobufScheme } from '../machinery/protobuf/protobuf-scheme.js';
import { kindMessages, type FieldNumbers } from '../machinery/protobuf/schema-messages.js';
import { revisionListKind, revisionSchemaNames, revisionSchemas } from '../machinery/types/revision-list.js';

/** The messages of a group's kinds and lists, and the field numbers they use. */
export function groupMessages(group: ApiGroup, committed: FieldNumbers): { messages: MessageDefinition[]; numbers: FieldNumbers } {
  const kinds = group.resources.flatMap((resource) => resource.versions.map((v) => ({ message: v.schemaName, schema: v.schema })));
  // A Revision's message, and its list's: the history subresource's RevisionList.
  const revisions = revisionVersions(group).map((version) => {
    const message = revisionSchemaNames(group.name, version).revision;
    return { message, schema: revisionSchemas(group.name, version)[message] };
  });
  return kindMessages([...kinds, ...revisions], committed);
}

/** The versions of `group` that serve a RevisionList: all, when a resource has history. */
function revisionVersions(group: ApiGroup): readonly string[] {
  return group.resources.some((resource) => resource.subresources.history) ? group.versions : [];
}

function groupKinds(group: ApiGroup): ProtobufKind[] {
  const kinds = group.resources.flatMap((resource) =>
    resource.versions.flatMap((v) => {
      const apiVersion = `${group.name}/${v.version}`;
      return [
        { apiVersion, kind: resource.kind, message: v.schemaName },
        { apiVersion, kind: resource.listKind, message: `${v.schemaName}List`, itemKind: resource.kind },
      ];
    }),
  );
  // A RevisionList's items are no kind of their own: each embeds its object, enveloped.
  const revisionLists = revisionVersions(group).map((version) => ({
    apiVersion: `${group.name}/${version}`,
    kind: revisionListKind,
    message: revisionSchemaNames(group.name, version).list,
  }));
  return [...kinds, ...revisionLists];
}

/** The scheme of Kubernetes' kinds and of the kinds of the groups that have protobuf. */
export function protobufScheme(groups: readonly ApiGroup[]): ProtobufScheme {
  const withProtobuf = groups.filter((g) => g.protobuf);
  return new ProtobufScheme(
    [...kubeKinds, ...withProtobuf.flatMap(groupKinds)],
    withProtobuf.flatMap((g) => groupMessages(g, g.protobuf!.fieldNumbers).messages),
  );
}
