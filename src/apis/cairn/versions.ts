/**
 * The served versions of cairn.dev, in kube's priority order (discovery lists them so;
 * the first is preferred). Adding a version is its folder and one line here.
 */
import type { CairnVersion } from './group-version.js';
import { v1 } from './v1/register.js';
import { v1alpha1 } from './v1alpha1/register.js';
import { v1beta1 } from './v1beta1/register.js';

export const servedVersions: readonly CairnVersion[] = [v1, v1beta1, v1alpha1];
