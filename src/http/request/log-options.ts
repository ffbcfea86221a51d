/**
 * The options of a log read, decoded from the query as kube decodes PodLogOptions:
 * a malformed value is a 400; values that decode but are out of range are left to
 * the registry's validation (422).
 */
import type { LogOptions } from '../../registry/request-options.js';
import { booleanParam, signedIntegerParam, timeParam, type Query } from './query.js';

/** Decodes `follow`, `tailLines`, `sinceSeconds`, `sinceTime`, `timestamps`, `limitBytes` and the stream parameter (`step`). */
export function logOptions(query: Query, streamParameter: string): LogOptions {
  return {
    stream: query.get(streamParameter) || undefined,
    follow: booleanParam(query, 'follow') ?? false,
    tailLines: signedIntegerParam(query, 'tailLines'),
    sinceSeconds: signedIntegerParam(query, 'sinceSeconds'),
    sinceTime: timeParam(query, 'sinceTime'),
    timestamps: booleanParam(query, 'timestamps') ?? false,
    limitBytes: signedIntegerParam(query, 'limitBytes'),
  };
}
