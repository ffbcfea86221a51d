import { afterEach, describe, expect, it, vi } from 'vitest';
import { now } from './time.js';

describe('now', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spells the current second, kept only while it is current', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-27T12:00:00.999Z'));
    expect(now()).toBe('2026-11-27T12:00:00Z');
    vi.setSystemTime(new Date('2026-11-27T12:00:01.000Z'));
    expect(now()).toBe('2026-11-27T12:00:01Z');
    // A clock stepped back is followed too.
    vi.setSystemTime(new Date('2026-11-27T11:59:59.500Z'));
    expect(now()).toBe('2026-11-27T11:59:59Z');
    expect(now()).toBe(new Date(Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  });
});
