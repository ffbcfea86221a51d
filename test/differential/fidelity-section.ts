/**
 * The table of deliberate divergences in the "Fidelity to kube-apiserver" section of
 * docs/api.md, generated from divergences.ts: one row per reason, with the cases it covers.
 * A test compares docs/api.md with it; `npx tsx test/differential/fidelity-section.ts`
 * writes it into docs/api.md between its two markers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { divergences, reasons } from './divergences.js';

/** Where the table is, and the markers around it. */
export const documentPath = join(import.meta.dirname, '..', '..', 'docs', 'api.md');
export const sectionStart = '<!-- fidelity:start — generated from test/differential/divergences.ts by test/differential/fidelity-section.ts -->';
export const sectionEnd = '<!-- fidelity:end -->';

/** A table cell: pipes escaped, as Markdown tables need. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The table, formatted as `prettier --check` wants docs/api.md. */
export async function fidelityTable(): Promise<string> {
  const rows = Object.values(reasons).map((reason) => {
    const names = Object.keys(divergences).filter((name) => divergences[name] === reason);
    return `| ${cell(reason)} | ${names.map((name) => `\`${cell(name)}\``).join(', ')} |`;
  });
  const table = ['| why Cairn answers differently | cases |', '| --- | --- |', ...rows].join('\n');
  const options = await resolveConfig(documentPath);
  return (await format(table, { ...options, parser: 'markdown' })).trimEnd();
}

/** The document's text between the markers, trimmed; undefined when a marker is missing. */
export function sectionOf(document: string): string | undefined {
  const start = document.indexOf(sectionStart);
  const end = document.indexOf(sectionEnd);
  if (start < 0 || end < start) return undefined;
  return document.slice(start + sectionStart.length, end).trim();
}

/** `document` with the table between the markers replaced by `table`. */
export function withTable(document: string, table: string): string {
  const start = document.indexOf(sectionStart);
  const end = document.indexOf(sectionEnd);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no ${sectionStart} … ${sectionEnd}`);
  return `${document.slice(0, start + sectionStart.length)}\n\n${table}\n\n${document.slice(end)}`;
}

if (process.argv[1] === import.meta.filename) {
  await writeFile(documentPath, withTable(await readFile(documentPath, 'utf8'), await fidelityTable()));
}
