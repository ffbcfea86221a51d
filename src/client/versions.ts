/** The versions of `cairn.dev` the server serves, each with generated types; `v1` is the preferred one. */
export const versions = ['v1', 'v1beta1', 'v1alpha1'] as const;

/** A served version of `cairn.dev`. */
export type Version = (typeof versions)[number];
