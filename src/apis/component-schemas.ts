/**
 * Every OpenAPI component schema the groups refer to: each version's kind, its
 * RevisionList (the history subresource's), and the meta, runtime and autoscaling types they use. Both the registry's validator and the OpenAPI documents
 * read them, so they are made here, below both.
 */
import type { JsonSchema } from '../machinery/json-schema.js';
import { metaSchemas } from '../machinery/types/meta-schemas.js';
import { scaleSchemas } from '../machinery/types/scale.js';
import { revisionSchemas } from '../machinery/types/revision-list.js';
import type { ApiGroup } from './api-resource.js';

/** Every component schema of the groups, with the meta types they refer to. */
export function componentSchemas(groups: readonly ApiGroup[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = { ...metaSchemas, ...scaleSchemas };
  for (const group of groups) {
    for (const resource of group.resources) {
      for (const version of resource.versions) components[version.schemaName] = version.schema;
    }
    // The history subresource's answer, one kind per group-version whatever the resource.
    if (group.resources.some((resource) => resource.subresources.history)) {
      for (const version of group.versions) Object.assign(components, revisionSchemas(group.name, version));
    }
  }
  return components;
}
