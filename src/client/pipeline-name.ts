/** What the Pipeline helpers (log, scale) take: which Pipeline, and through which version's endpoint. */
import type { Version } from './versions.js';

/** What identifies a Pipeline. */
export interface PipelineName {
  readonly namespace: string;
  readonly name: string;
}

/** Which version's endpoint a Pipeline helper calls (`v1` unless given; every version serves the same log and Scale), and when to give up. */
export interface PipelineRequestOptions {
  readonly version?: Version;
  readonly signal?: AbortSignal;
}

/** The path of a Pipeline subresource in `version`. */
export function pipelineSubresourcePath<S extends 'log' | 'scale', V extends Version = 'v1'>(subresource: S, version?: V) {
  return `/apis/cairn.dev/${version ?? 'v1'}/namespaces/{namespace}/pipelines/{name}/${subresource}` as `/apis/cairn.dev/${V}/namespaces/{namespace}/pipelines/{name}/${S}`;
}
