/** The API group served. */
export const groupName = 'cairn.dev';

/** The version objects are stored in, and every other converts through (the hub). */
export const storageVersion = 'v1';
