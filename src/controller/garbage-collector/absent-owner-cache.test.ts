// The collector's memory of owners found absent: known by where they were looked for and their uid, and bounded (least recently used go first).
import { describe, expect, it } from 'vitest';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import type { ObjectLocation } from './metadata-client.js';

const classes = { group: 'cairn.dev', version: 'v1', resource: 'runnerclasses', kind: 'RunnerClass', namespaced: false };
const pipelines = { group: 'cairn.dev', version: 'v1', resource: 'pipelines', kind: 'Pipeline', namespaced: true };
const at = (name: string, namespace?: string): ObjectLocation => (namespace ? { resource: pipelines, namespace, name } : { resource: classes, name });

describe('AbsentOwnerCache', () => {
  it('knows an owner by where it was looked for and its uid', () => {
    const absent = new AbsentOwnerCache(10);
    absent.add(at('p', 'a'), 'u1');
    expect(absent.has(at('p', 'a'), 'u1')).toBe(true);
    // Another uid under the name, the name in another namespace, another name with the uid: not known.
    expect(absent.has(at('p', 'a'), 'u2')).toBe(false);
    expect(absent.has(at('p', 'b'), 'u1')).toBe(false);
    expect(absent.has(at('q', 'a'), 'u1')).toBe(false);
    expect(absent.has(at('p'), 'u1')).toBe(false);
  });

  it('holds at most its capacity, forgetting the least recently used first', () => {
    const absent = new AbsentOwnerCache(2);
    absent.add(at('a'), '1');
    absent.add(at('b'), '2');
    expect(absent.has(at('a'), '1')).toBe(true);
    absent.add(at('c'), '3');
    expect(absent.size).toBe(2);
    expect(absent.has(at('b'), '2')).toBe(false);
    expect(absent.has(at('a'), '1')).toBe(true);
    expect(absent.has(at('c'), '3')).toBe(true);
  });
});
