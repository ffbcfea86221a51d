/**
 * `results.json` and `report.md` in the bench's output directory: each run reads what is
 * there, replaces its own part and writes both again, formatted as the repository is.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as prettier from 'prettier';
import type { ResultsDocument } from './bench-results.js';
import { renderReport } from './report.js';
import { repoRoot } from './repo-root.js';

/** Writes `text` to `file` as prettier formats it with the repository's settings, so the committed outputs pass `prettier --check`. */
export async function writeFormatted(file: string, text: string): Promise<void> {
  const config = (await prettier.resolveConfig(join(repoRoot, 'bench', basename(file)))) ?? {};
  await writeFile(file, await prettier.format(text, { ...config, filepath: file }));
}

/** The results already in `outDir`, to keep the parts this run does not measure. */
export async function previousResults(outDir: string): Promise<ResultsDocument> {
  try {
    return JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')) as ResultsDocument;
  } catch {
    return {};
  }
}

/** Writes `results.json` and `report.md` into `outDir`. */
export async function writeResults(outDir: string, results: ResultsDocument): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await writeFormatted(join(outDir, 'results.json'), JSON.stringify(results));
  await writeFormatted(join(outDir, 'report.md'), renderReport(results));
  console.error(`wrote ${join(outDir, 'results.json')} and ${join(outDir, 'report.md')}`);
}
