/**
 * Durations as kube prints them (`humanDuration`), as Go parses them (`parseGoDuration`), and
 * with days and weeks (`parseLongDuration`).
 */
import { describe, expect, it } from 'vitest';
import { humanDuration, parseGoDuration, parseLongDuration } from './duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it.each([
    [-3 * s, '<invalid>'],
    [-1.5 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [2 * m + 5 * s, '2m5s'],
    [10 * m + 30 * s, '10m'],
    [3 * h, '3h'],
    [3 * h + 12 * m, '3h12m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [2 * d + 5 * h, '2d5h'],
    [8 * d + 5 * h, '8d'],
    [730 * d, '2y'],
    [731 * d, '2y1d'],
    [8 * 365 * d + 3 * d, '8y'],
  ])('%d ms is %s, as kube renders it', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['1m0s', 60 * s],
    ['30s', 30 * s],
    ['1.5h', 1.5 * h],
    ['500ms', 500],
    ['+2s', 2 * s],
    ['-2s', -2 * s],
    ['1h2m3s4ms', h + 2 * m + 3 * s + 4],
    ['.5s', 500],
  ])('reads %s as %d ms, as time.ParseDuration does', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['soon', 'time: invalid duration "soon"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['1s-2s', 'time: unknown unit "s-" in duration "1s-2s"'],
  ])('refuses %j with Go’s message', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});

describe('parseLongDuration', () => {
  it.each([
    ['7d', 7 * d],
    ['2w', 14 * d],
    ['1w2d', 9 * d],
    ['1d12h', 1.5 * d],
    ['0.5d', 12 * h],
    ['90m', 90 * m],
    ['0', 0],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseLongDuration(text)).toBe(ms);
  });

  it.each([
    ['7', 'time: missing unit in duration "7"'],
    ['1y', 'time: unknown unit "y" in duration "1y"'],
    ['week', 'time: invalid duration "week"'],
  ])('refuses %j with Go’s message', (text, message) => {
    expect(() => parseLongDuration(text)).toThrow(message);
  });
});
