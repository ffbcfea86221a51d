/** The `log` check follows the logger's destination: it fails once that is closed. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { logCheck } from './log-check.js';

describe('logCheck', () => {
  it('passes while the destination is open and fails once it is closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-log-check-'));
    try {
      const destination = pino.destination({ dest: join(dir, 'log'), sync: true });
      const check = logCheck(pino(destination));
      expect(await check.check()).toBeUndefined();
      destination.destroy();
      expect(await check.check()).toBe("the log's destination is closed");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is named as kube names it', () => {
    expect(logCheck(pino({ level: 'silent' })).name).toBe('log');
  });
});
