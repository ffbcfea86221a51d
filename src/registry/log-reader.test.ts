/**
 * A follower over HTTP that falls behind its log's byte cap (`--log-max-bytes-per-pipeline`):
 * the lines removed before it read them are skipped with one plain marker line, and the
 * follow goes on with the lines kept and the ones appended after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skippedLinesMarker } from '../storage/log-lines.js';
import { openLog } from '../../test/support/log-client.js';
import { pipeline, startTestServer, type TestServer } from '../../test/support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
/** `count` lines of 99 characters (100 bytes with the newline), numbered from `from`. */
const numbered = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${String(from + i).padStart(4, '0')} ${'x'.repeat(94)}`);

describe('a log follower behind the byte cap', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ backend: 'pglite', args: ['--log-max-bytes-per-pipeline', '1000'] });
  });
  afterAll(async () => server?.destroy());

  const append = async (lines: string[]) =>
    expect((await server.request('POST', `${pipelines}/capped/log`, { body: { step: 'fetch', lines } })).status).toBe(201);

  it('gets one marker line in place of the lines removed, then the rest', async () => {
    const steps = [{ name: 'fetch', image: 'alpine:3.20', command: ['true'] }];
    expect((await server.request('POST', pipelines, { body: pipeline('capped', { steps }) })).status).toBe(201);
    await append(numbered(0, 2));
    const log = await openLog(server, `${pipelines}/capped/log?follow=true`);
    try {
      await log.arrival(`${numbered(1, 1)[0]}\n`);
      // One append of twelve lines: the log keeps ten (1,000 bytes); the two read and the first two appended go.
      await append(numbered(2, 12));
      await log.arrival(`${numbered(13, 1)[0]}\n`);
      await append(numbered(14, 1));
      await log.arrival(`${numbered(14, 1)[0]}\n`);
      expect(log.text()).toBe([...numbered(0, 2), skippedLinesMarker, ...numbered(4, 11)].map((line) => `${line}\n`).join(''));
    } finally {
      log.close();
    }
    // A read from the start gets what is kept, with no marker.
    const read = await server.request('GET', `${pipelines}/capped/log`);
    expect(read.text).toBe(
      numbered(5, 10)
        .map((line) => `${line}\n`)
        .join(''),
    );
  });
});
