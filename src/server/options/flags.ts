/**
 * What every options module is made of: the flags it declares (for `parseArgs` and the
 * usage), how it reads them into its part of the configuration, and the readers that
 * give one kind of flag the same parsing and the same error everywhere, as pflag's types
 * do for kube's options. A reader throws a {@link FlagError}; the command line adds the usage.
 */
import { resolve } from 'node:path';
import { parseGoDuration, parseLongDuration } from '../../machinery/duration.js';

/** One flag: its `parseArgs` type and how the usage shows it (`[--port N]`). */
export interface Flag {
  readonly type: 'string' | 'boolean';
  /** Repeatable; its values are collected in order. */
  readonly multiple?: boolean;
  readonly usage: string;
}

/** The values `parseArgs` read, by flag name. */
export type FlagValues = Readonly<Record<string, string | string[] | boolean | undefined>>;

/** A concern's flags, environment variables and reading of them: kube's `AddFlags` and `Validate`. */
export interface ConcernOptions<Parsed> {
  readonly flags: Readonly<Record<string, Flag>>;
  /** The environment variables it reads, as the usage lists them. */
  readonly environment?: readonly string[];
  /** What the usage says of the environment beyond the names. */
  readonly environmentNote?: string;
  /** Reads and validates its flags (flags win over environment variables); throws a {@link FlagError}. */
  parse(values: FlagValues, env: NodeJS.ProcessEnv): Parsed;
}

/** Bad input on the command line; its message names the flag and what is wrong. */
export class FlagError extends Error {}

/** A string flag's value. */
export function stringFlag(values: FlagValues, flag: string): string | undefined {
  const value = values[flag];
  return typeof value === 'string' ? value : undefined;
}

/** A file flag, as an absolute path; undefined when unset or empty. */
export function fileFlag(values: FlagValues, flag: string): string | undefined {
  const value = stringFlag(values, flag);
  return value ? resolve(value) : undefined;
}

/** A kubeconfig flag, as an absolute path; as k8s.io/apiserver reads it, set even when empty. */
export function kubeconfigFlag(values: FlagValues, flag: string): string | undefined {
  const value = stringFlag(values, flag);
  return value === undefined ? undefined : resolve(value);
}

/** Seconds (`30`, `2.5`) in ms; `fallback` seconds when unset or empty. */
export function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback * 1000;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new FlagError(`${name} must be a non-negative number of seconds, got "${value}"`);
  return n * 1000;
}

/**
 * A span of history: seconds (`900`, as the flag always took) or a duration with days
 * and weeks (`7d`, `2w`, `12h`), in ms; `fallback` seconds when unset or empty.
 */
export function retention(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback * 1000;
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(value)) return seconds(name, value, fallback);
  let ms: number;
  try {
    ms = parseLongDuration(value);
  } catch (error) {
    throw new FlagError(`${name} must be a non-negative number of seconds or a duration (7d, 12h, 30m), got "${value}"`, { cause: error });
  }
  if (ms < 0) throw new FlagError(`${name} must be a non-negative number of seconds or a duration (7d, 12h, 30m), got "${value}"`);
  return ms;
}

/** A duration flag as Go's `time.ParseDuration` reads it (`10s`, `1m30s`, `500ms`, `0`), in ms; negative ones are refused. */
export function goDuration(flag: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (error) {
    throw new FlagError(`invalid duration "${value}" for --${flag}`, { cause: error });
  }
  // As kube validates --request-timeout: "can not be negative value".
  if (ms < 0) throw new FlagError(`invalid duration "${value}" for --${flag}: it can not be negative value`);
  return ms;
}

/** An int flag as pflag reads it, which kube then requires to be non-negative. */
export function count(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new FlagError(`invalid argument "${value}" for "--${flag}" flag: parsing "${value}": invalid syntax`);
  if (n < 0) throw new FlagError(`--${flag} ${n} can't be a negative number`);
  return n;
}

const binarySuffixes: Readonly<Record<string, number>> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size in bytes, plain (`10485760`) or with a binary suffix as kubelet's `containerLogMaxSize` takes it (`10Mi`, `512Ki`, `1Gi`). */
export function byteSize(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(value);
  const bytes = match ? Number(match[1]) * binarySuffixes[match[2] ?? ''] : NaN;
  if (!Number.isSafeInteger(bytes)) throw new FlagError(`invalid size "${value}" for --${flag}: a number of bytes, or of Ki, Mi or Gi (10Mi)`);
  return bytes;
}

/**
 * A list flag as pflag's StringSlice reads it: comma-separated, repeatable (the first use
 * replaces the default), an empty value an empty list, and, as kube validates, no empty item.
 */
export function stringSlice(flag: string, values: FlagValues, fallback: readonly string[]): readonly string[] {
  const given = values[flag] as readonly string[] | undefined;
  if (given === undefined) return fallback;
  const items = given.flatMap((value) => (value === '' ? [] : value.split(',').map((item) => item.trim())));
  if (items.includes('')) throw new FlagError(`empty value in "--${flag}"`);
  return Object.freeze(items);
}
