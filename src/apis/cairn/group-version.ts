/**
 * One served version of cairn.dev: how each of its kinds is spoken in it. A version
 * is one folder exporting one of these, listed once in `versions.ts`.
 */
import type { ResourceVersion } from '../api-resource.js';

/** The kinds of cairn.dev in one version. */
export interface CairnVersion {
  readonly version: string;
  readonly pipelines: ResourceVersion;
  readonly runnerClasses: ResourceVersion;
}
