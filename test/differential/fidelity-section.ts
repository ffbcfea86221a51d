/**
 * The table of deliberate divergences in the README's "Fidelity to kube-apiserver"
 * section, generated from divergences.ts: one row per reason, with the cases it covers.
 * A test compares the README with it; `npx tsx test/differential/fidelity-section.ts`
 * writes it into the README between its two markers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { divergences, reasons } from './divergences.js';

/** Where the table is, and the markers around it. */
export const readmePath = join(import.meta.dirname, '..', '..', 'README.md');
export const sectionStart = '<!-- fidelity:start — generated from test/differential/divergences.ts by test/differential/fidelity-section.ts -->';
export const sectionEnd = '<!-- fidelity:end -->';

/** A table cell: pipes escaped, as Markdown tables need. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The table, formatted as `prettier --check` wants the README. */
export async function fidelityTable(): Promise<string> {
  const rows = Object.values(reasons).map((reason) => {
    const names = Object.keys(divergences).filter((name) => divergences[name] === reason);
    return `| ${cell(reason)} | ${names.map((name) => `\`${cell(name)}\``).join(', ')} |`;
  });
  const table = ['| why Cairn answers differently | cases |', '| --- | --- |', ...rows].join('\n');
  const options = await resolveConfig(readmePath);
  return (await format(table, { ...options, parser: 'markdown' })).trimEnd();
}

/** The README's text between the markers, trimmed; undefined when a marker is missing. */
export function sectionOf(readme: string): string | undefined {
  const start = readme.indexOf(sectionStart);
  const end = readme.indexOf(sectionEnd);
  if (start < 0 || end < start) return undefined;
  return readme.slice(start + sectionStart.length, end).trim();
}

/** `readme` with the table between the markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(sectionStart);
  const end = readme.indexOf(sectionEnd);
  if (start < 0 || end < start) throw new Error(`README.md has no ${sectionStart} … ${sectionEnd}`);
  return `${readme.slice(0, start + sectionStart.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  await writeFile(readmePath, withTable(await readFile(readmePath, 'utf8'), await fidelityTable()));
}
