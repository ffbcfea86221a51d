/**
 * Committed generated files (`openapi/`, `proto/`): listing what a folder holds, and
 * writing a fresh set in place, so a version no longer served leaves no file behind.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/** Every file ending in `extension` below `dir` (none when it does not exist), relative to `root`, sorted. */
export async function filesIn(root: string, dir: string, extension: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Writes `files` (paths relative to `root`) and removes the files ending in `extension`
 * below `dir` that are not among them; returns the paths written.
 */
export async function writeGeneratedFiles(root: string, dir: string, extension: string, files: ReadonlyMap<string, string>): Promise<string[]> {
  for (const stale of (await filesIn(root, dir, extension)).filter((path) => !files.has(path))) await rm(join(root, stale));
  for (const [path, content] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return [...files.keys()];
}
