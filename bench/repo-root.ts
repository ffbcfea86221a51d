/** The repository's root directory, where servers are started from. */
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository (the parent of `bench/`). */
export const repoRoot: string = fileURLToPath(new URL('..', import.meta.url));
