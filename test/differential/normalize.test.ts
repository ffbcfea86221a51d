/** The differential test's normalization: each rule takes out only what it says. */
import { describe, expect, it } from 'vitest';
import type { Answer } from './client.js';
import { normalize } from './normalize.js';

const group = 'crd.cairn.test';

/** An answer with `body` as JSON (or as is, when a string). */
function answer(body: unknown, more: Partial<Answer> = {}): Answer {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: 200, contentType: 'application/json', warnings: [], body: Buffer.from(text), json, ...more };
}

describe('normalize', () => {
  it('names the group cairn.dev, and replaces uids, resourceVersions and times with placeholders that keep their presence', () => {
    const object = {
      apiVersion: `${group}/v1`,
      metadata: { name: 'a', uid: '0b9c1d1e-1111-2222-3333-444455556666', resourceVersion: '12', creationTimestamp: '2026-01-01T00:00:00Z', generation: 1 },
    };
    expect(normalize(answer(object), group, false).body).toEqual({
      apiVersion: 'cairn.dev/v1',
      metadata: { name: 'a', uid: '<uid>', resourceVersion: '<resourceVersion>', creationTimestamp: '<creationTimestamp>', generation: 1 },
    });
    expect(normalize(answer({ metadata: { name: 'a' } }), group, false).body).toEqual({ metadata: { name: 'a' } });
    expect(normalize(answer({ message: `pipelines.${group} "a": UID in precondition: 0b9c1d1e-1111-2222-3333-444455556666` }), group, false).body).toEqual({
      message: 'pipelines.cairn.dev "a": UID in precondition: <uid>',
    });
  });

  it('keeps that a name was generated, not the name; drops an empty continue; ages a Table’s date cells', () => {
    expect(normalize(answer({ metadata: { generateName: 'gen-', name: 'gen-x7k2p' } }), group, false).body).toEqual({
      metadata: { generateName: 'gen-', name: 'gen-<generated>' },
    });
    expect(normalize(answer({ metadata: { continue: '' } }), group, false).body).toEqual({ metadata: {} });
    const table = { kind: 'Table', columnDefinitions: [{ type: 'string' }, { type: 'date' }], rows: [{ cells: ['a', '3s'] }] };
    expect(normalize(answer(table), group, false).body).toMatchObject({ rows: [{ cells: ['a', '<age>'] }] });
  });

  it('reads a watch as its events, without the bookmarks that only carry a resourceVersion', () => {
    const lines = [
      { type: 'ADDED', object: { metadata: { name: 'a' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } } },
    ];
    const events = normalize(answer(lines.map((line) => JSON.stringify(line)).join('\n')), group, true).body;
    expect(events).toEqual([
      lines[0],
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '<resourceVersion>', annotations: { 'k8s.io/initial-events-end': 'true' } } } },
    ]);
  });

  it('ages the date cells of a watch’s Table events by the columns its first event defined', () => {
    const first = { kind: 'Table', columnDefinitions: [{ type: 'string' }, { type: 'date' }], rows: [{ cells: ['a', '3s'] }] };
    const next = { kind: 'Table', columnDefinitions: null, rows: [{ cells: ['b', '1s'] }] };
    const lines = [first, next].map((object) => JSON.stringify({ type: 'ADDED', object })).join('\n');
    expect(normalize(answer(lines), group, true).body).toEqual([
      { type: 'ADDED', object: { ...first, rows: [{ cells: ['a', '<age>'] }] } },
      { type: 'ADDED', object: { ...next, rows: [{ cells: ['b', '<age>'] }] } },
    ]);
  });

  it('compares the media type without its parameters, and warnings with the group renamed', () => {
    const normalized = normalize(answer({}, { contentType: 'application/json; charset=utf-8', warnings: [`299 - "${group} is deprecated"`] }), group, false);
    expect(normalized.mediaType).toBe('application/json');
    expect(normalized.warnings).toEqual(['299 - "cairn.dev is deprecated"']);
  });
});
