/**
 * The CPU profile summaries of `bench/cpu-command.ts` (bench/cpuprofile.ts): a profile is
 * cut to the load's window by the monotonic clock, idle time is left out, and each
 * function is charged its self and inclusive time, so the committed tables say what the
 * profile says.
 */
import { describe, expect, it } from 'vitest';
import { functionTimes, ownFunctionTimes, stacksBetween, type CpuProfile } from '../../bench/cpuprofile.js';

const root = '/repo';
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url }, children });

// (root) → handle (src/http/app.ts) → stringify (node_modules/koa) ; (root) → (idle)
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 4]),
    frame(2, 'handle', 'file:///repo/src/http/app.ts', [3]),
    frame(3, 'stringify', 'file:///repo/node_modules/koa/lib/x.js'),
    frame(4, '(idle)', ''),
  ],
  startTime: 1000,
  endTime: 1600,
  // At 1100, 1200, …, 1600; each sample lasts until the next (the last, with no next, counts nothing).
  samples: [2, 3, 3, 4, 3, 2],
  timeDeltas: [100, 100, 100, 100, 100, 100],
};

describe('CPU profile summaries', () => {
  it('keeps the samples of the window, without idle time, with each stack from its root', () => {
    const stacks = stacksBetween(profile, 1050, 1450, root);
    // Samples at 1100 (handle), 1200 and 1300 (stringify), 1400 (idle, left out); 1500 is after the window.
    expect(stacks).toEqual([
      { frames: ['handle (src/http/app.ts)'], micros: 100 },
      { frames: ['handle (src/http/app.ts)', 'stringify (koa)'], micros: 200 },
    ]);
  });

  it('charges self time to the leaf and inclusive time to every frame, and library time to the innermost of Cairn’s functions', () => {
    const stacks = stacksBetween(profile, 0, Number.MAX_SAFE_INTEGER, root);
    const times = functionTimes(stacks);
    expect(times).toEqual([
      { name: 'stringify (koa)', selfMicros: 300, totalMicros: 300 },
      { name: 'handle (src/http/app.ts)', selfMicros: 100, totalMicros: 400 },
    ]);
    expect([...ownFunctionTimes(stacks)]).toEqual([['handle (src/http/app.ts)', 400]]);
  });
});
