/**
 * Every relative link in the repository's Markdown (README.md, docs/ and the READMEs of its
 * folders) leads somewhere: to a file the repository holds and, with a `#fragment` into a
 * Markdown file, to one of its headings as GitHub anchors them. The documents cite each
 * other by section, so a renamed heading or a moved section fails here, not in a reader's
 * browser.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const documents = [
  'README.md',
  'docs/api.md',
  'docs/api-reference.md',
  'docs/architecture.md',
  'docs/client.md',
  'docs/operating.md',
  'docs/testing.md',
  'apiservice/README.md',
  'examples/README.md',
  'proto/README.md',
];

/** The text outside fenced code blocks and inline code, where a `[…](…)` is a link. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Each relative link's target, as written: `(path)`, `(path#fragment)` or `(#fragment)`. */
const linksOf = (markdown: string): string[] =>
  [...prose(markdown).matchAll(/\]\(([^()\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));

describe('links between the documents', () => {
  it.each(documents)('every relative link in %s names an existing file and heading', async (document) => {
    const path = join(root, document);
    const markdown = await readFile(path, 'utf8');
    const broken: string[] = [];
    for (const target of linksOf(markdown)) {
      const [file, fragment] = target.split('#', 2);
      const targetPath = file === '' ? path : join(dirname(path), decodeURIComponent(file));
      if (!existsSync(targetPath)) {
        broken.push(`${target}: no ${relative(root, targetPath)}`);
        continue;
      }
      if (fragment === undefined || !targetPath.endsWith('.md')) continue;
      const anchors = anchorsOf(targetPath === path ? markdown : await readFile(targetPath, 'utf8'));
      if (!anchors.has(fragment)) broken.push(`${target}: ${relative(root, targetPath)} has no heading anchored #${fragment}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks', async () => {
    // A check that matches nothing passes on anything: the README links into docs/ by section.
    const links = linksOf(await readFile(join(root, 'README.md'), 'utf8'));
    expect(links).toContain('docs/operating.md#durability');
    expect(anchorsOf("## With PostgreSQL: `docker compose up`\n## Embedded PGlite's limits\n## A\n## A")).toEqual(
      new Set(['with-postgresql-docker-compose-up', 'embedded-pglites-limits', 'a', 'a-1']),
    );
  });
});
