// The controllers' work queue: a key at most once queued and once in work, rate-limited, as client-go's workqueue promises.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

describe('WorkQueue', () => {
  it('hands out a key added many times once, in the order keys were first added', async () => {
    const queue = new WorkQueue<string>({ intervalMs: 0 });
    for (const key of ['a', 'b', 'a', 'c', 'b', 'a']) queue.add(key);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['a', 'b', 'c']);
    queue.shutDown();
    expect(await queue.get()).toBeUndefined();
  });

  it('counts the keys waiting to be handed out as its depth', async () => {
    const queue = new WorkQueue<string>({ intervalMs: 0 });
    for (const key of ['a', 'b', 'a']) queue.add(key);
    expect(queue.depth).toBe(2);
    const key = await queue.get();
    expect(queue.depth).toBe(1);
    queue.add(key!);
    expect(queue.depth).toBe(2);
    queue.shutDown();
  });

  it('never hands a key to two workers at once: added while in work, it comes back after done', async () => {
    const queue = new WorkQueue<string>({ intervalMs: 0 });
    queue.add('a');
    const key = await queue.get();
    queue.add('a');
    queue.add('a');
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await sleep(20);
    expect(second).toBeUndefined();
    queue.done(key!);
    await sleep(0);
    expect(second).toBe('a');
  });

  it('hands out one key at most once per interval, other keys meanwhile', async () => {
    const queue = new WorkQueue<string>({ intervalMs: 150 });
    queue.add('a');
    const first = await queue.get();
    const started = Date.now();
    queue.done(first!);
    queue.add('a');
    queue.add('b');
    expect(await queue.get()).toBe('b');
    expect(Date.now() - started).toBeLessThan(100);
    expect(await queue.get()).toBe('a');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('resolves waiting workers with undefined at shutdown and ignores later adds', async () => {
    const queue = new WorkQueue<string>({ intervalMs: 1000 });
    queue.add('a');
    queue.done((await queue.get())!);
    queue.add('a');
    const waiting = queue.get();
    queue.shutDown();
    queue.add('b');
    expect(await waiting).toBeUndefined();
    expect(await queue.get()).toBeUndefined();
  });
});
