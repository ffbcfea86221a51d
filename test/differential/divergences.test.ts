/**
 * The differential test's lists, checked without a control plane: every listed case
 * exists and is listed once, the table is big enough, and docs/api.md shows the
 * deliberate divergences as divergences.ts has them.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cases } from './cases.js';
import { divergences, reasons } from './divergences.js';
import { fidelityTable, documentPath, sectionOf } from './fidelity-section.js';

describe('the differential test’s table and lists', () => {
  it('has at least 100 cases, each named once', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it('lists only cases that exist', () => {
    const names = new Set(cases.map((c) => c.name));
    expect(Object.keys(divergences).filter((name) => !names.has(name))).toEqual([]);
  });

  it('gives each divergence one of the reasons, and uses every reason', () => {
    const known = new Set<string>(Object.values(reasons));
    expect(Object.entries(divergences).filter(([, reason]) => !known.has(reason))).toEqual([]);
    expect(Object.values(reasons).filter((reason) => !Object.values(divergences).includes(reason))).toEqual([]);
  });

  it('shows the divergences in docs/api.md’s “Fidelity to kube-apiserver” section', async () => {
    const document = await readFile(documentPath, 'utf8');
    expect(sectionOf(document), 'docs/api.md’s fidelity table is stale: run `npx tsx test/differential/fidelity-section.ts`').toBe(await fidelityTable());
  });
});
