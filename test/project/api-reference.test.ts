/**
 * docs/api-reference.md: the committed file is what `npm run api-reference` writes from
 * the served groups, and it documents every kind, version, field, subresource and printer
 * column they have.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/machinery/json-schema.js';
import { apiReference } from '../../src/openapi/api-reference.js';
import { apiReferenceFile, apiReferencePath } from '../../src/server/api-reference-file.js';
import { servedGroups } from '../../src/server/server.js';
import { widgetsGroup } from '../support/widgets/register.js';

const root = join(import.meta.dirname, '..', '..');

/** The dotted paths of a schema's fields below its top level, as the reference names them. */
function fieldPaths(schema: JsonSchema, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    if (path === 'metadata') return [path];
    return [path, ...fieldPaths(field, `${path}.`), ...(field.items ? fieldPaths(field.items, `${path}[].`) : [])];
  });
}

/** The table rows of a section of the reference (from `## Kind` to the next `## `), by their first cell. */
function sectionOf(reference: string, kind: string): string {
  const start = reference.indexOf(`\n## ${kind}\n`);
  expect(start, `a section for ${kind}`).toBeGreaterThan(0);
  const end = reference.indexOf('\n## ', start + 1);
  return reference.slice(start, end < 0 ? undefined : end);
}

/** The part of a kind's section under `### heading`. */
function subsectionOf(section: string, heading: string): string {
  const start = section.indexOf(`\n### ${heading}\n`);
  expect(start, `a subsection ${heading}`).toBeGreaterThan(0);
  const end = section.indexOf('\n### ', start + 1);
  return section.slice(start, end < 0 ? undefined : end);
}

/** The cells of the rows whose first cell is `first`. */
const rowsOf = (section: string, first: string): string[][] =>
  section
    .split('\n')
    .map((line) => line.split(/(?<!\\)\|/).map((c) => c.trim()))
    .filter((cells) => cells[1] === first)
    .map((cells) => cells.slice(1, -1));

describe('the API reference', () => {
  it(`has ${apiReferencePath} up to date`, async () => {
    const committed = await readFile(join(root, apiReferencePath), 'utf8');
    expect(committed, `${apiReferencePath} is stale: run \`npm run api-reference\``).toBe(await apiReferenceFile(servedGroups));
  });

  it('is what `npm run api-reference -- --out FILE` writes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-api-reference-'));
    try {
      const out = join(dir, 'api-reference.md');
      await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['src/server/api-reference-command.ts', '--out', out], {
        cwd: root,
        env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
      });
      expect(await readFile(out, 'utf8')).toBe(await apiReferenceFile(servedGroups));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents every kind with its scope and versions, and every field of every version with the versions that have it', async () => {
    const reference = await apiReferenceFile(servedGroups);
    for (const group of servedGroups) {
      for (const resource of group.resources) {
        const section = sectionOf(reference, resource.kind);
        expect(rowsOf(section, 'scope')[0][1]).toBe(resource.namespaced ? 'Namespaced' : 'Cluster');
        for (const version of resource.versions) expect(rowsOf(section, 'versions')[0][1]).toContain(`\`${group.name}/${version.version}\``);
        const allPaths = new Set(resource.versions.flatMap((v) => fieldPaths(v.schema)));
        for (const path of allPaths) {
          const rows = rowsOf(subsectionOf(section, 'Fields'), `\`${path}\``);
          expect(rows.length, `${resource.kind} ${path}`).toBeGreaterThan(0);
          // Each version that has the field is named by exactly one of its rows; the others by none.
          const named = rows.flatMap(([, , versions]) =>
            versions === 'all' ? resource.versions.map((v) => v.version) : versions.replaceAll('`', '').split(', '),
          );
          const having = resource.versions.filter((v) => fieldPaths(v.schema).includes(path)).map((v) => v.version);
          expect(named.sort(), `${resource.kind} ${path}`).toEqual(having.sort());
        }
      }
    }
  });

  it('shows the versions’ differences: Pipeline fields renamed in v1alpha1, their defaults, limits, and the columns that read them', async () => {
    const pipeline = sectionOf(await apiReferenceFile(servedGroups), 'Pipeline');
    expect(rowsOf(pipeline, '`spec.replicas`')).toEqual([
      [
        '`spec.replicas`',
        'integer (int32)',
        '`v1`, `v1beta1`',
        '`1`',
        '≥ 0',
        "Number of parallel runners, the scale subresource's spec.replicas. Defaults to 1.",
      ],
    ]);
    expect(rowsOf(pipeline, '`spec.parallelism`')[0].slice(0, 5)).toEqual(['`spec.parallelism`', 'integer (int32)', '`v1alpha1`', '`1`', '≥ 0']);
    expect(rowsOf(pipeline, '`spec.steps[].name`')[0][4]).toBe('required, 1 to 63 characters');
    expect(rowsOf(pipeline, '`status.phase`')[0][4]).toBe('one of `Pending`, `Running`, `Paused`, `Failed`');
    expect(rowsOf(pipeline, '`spec.steps`')[0][1]).toBe('[]object, a map keyed by `name`');
    // Subresources, the scale's paths in each version's names.
    expect(rowsOf(subsectionOf(pipeline, 'Subresources'), '`status`').map((row) => row[1])).toEqual(['all']);
    expect(rowsOf(pipeline, '`scale`').map((row) => [row[1], /`spec.replicas` is `([^`]+)`/.exec(row[2])?.[1]])).toEqual([
      ['`v1`, `v1beta1`', '.spec.replicas'],
      ['`v1alpha1`', '.spec.parallelism'],
    ]);
    expect(rowsOf(pipeline, '`log` (alias `logs`)')).toHaveLength(1);
    // Printer columns per version, as kubectl prints their headers.
    expect(rowsOf(pipeline, '`v1alpha1`').map((row) => [row[1], row[3]])).toEqual([
      ['NAME', '`.metadata.name`'],
      ['RUNNERCLASS', '`.spec.runnerClass`'],
      ['REPLICAS', '`.spec.parallelism`'],
      ['READY', '`.status.readyReplicas`'],
      ['PHASE', '`.status.phase`'],
      ['AGE', '`.metadata.creationTimestamp`'],
    ]);
    expect(rowsOf(pipeline, '`v1`, `v1beta1`').map((row) => row[1])).toEqual(['NAME', 'RUNNERCLASS', 'REPLICAS', 'READY', 'PHASE', 'AGE']);
    const runnerClass = sectionOf(await apiReferenceFile(servedGroups), 'RunnerClass');
    expect(rowsOf(subsectionOf(runnerClass, 'Subresources'), '`status`').map((row) => row[1])).toEqual(['all']);
    expect(rowsOf(runnerClass, '`scale`')).toEqual([]);
  });

  it('documents any group it is given: widgets.test, a kind without subresources, and every field of its versions', () => {
    const widget = sectionOf(apiReference([widgetsGroup]), 'Widget');
    expect(widget).toContain('### Subresources\n\nNone.');
    const paths = new Set(widgetsGroup.resources[0].versions.flatMap((v) => fieldPaths(v.schema)));
    for (const path of paths) expect(rowsOf(subsectionOf(widget, 'Fields'), `\`${path}\``).length, path).toBeGreaterThan(0);
  });
});
