/**
 * V8 CPU profiles (`node --cpu-prof`'s `.cpuprofile`): the part of a whole-process
 * profile that fell inside one load, and its top functions by self and by inclusive
 * time, so that a profile can be read without a browser and kept as text beside its
 * flame graph.
 */
import { relative } from 'node:path';

/** One node of a `.cpuprofile`'s call tree. */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

/** A `.cpuprofile` as V8 writes it: times in µs of the monotonic clock. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A call stack, root first, and the µs of samples that ended in it. */
export interface StackTime {
  readonly frames: readonly string[];
  readonly micros: number;
}

/** A function's share of a profile. */
export interface FunctionTime {
  readonly name: string;
  readonly selfMicros: number;
  readonly totalMicros: number;
}

/** Frames V8 adds that are no function of the program. */
const syntheticFrames = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/**
 * `name (file)`, with paths relative to `root` and node_modules shortened to the package
 * (no line: tsx's transpiled modules report line 1 for every function).
 */
function frameName(node: ProfileNode, root: string): string {
  const { functionName, url } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const path = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return `${name} (${pkg ? pkg[1] : path})`;
}

/**
 * The stacks sampled between `fromMicros` and `toMicros` (the monotonic clock in µs, as
 * `process.hrtime.bigint() / 1000n` reads it in any process of the machine), with the
 * idle time left out: what the process spent its CPU on during that window.
 */
export function stacksBetween(profile: CpuProfile, fromMicros: number, toMicros: number, root: string): StackTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perNode = new Map<number, number>();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    // A sample's time is the interval up to the next one.
    const next = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    if (time < fromMicros || time > toMicros) continue;
    const id = profile.samples[i];
    perNode.set(id, (perNode.get(id) ?? 0) + next);
  }
  const stacks: StackTime[] = [];
  for (const [id, micros] of perNode) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const frames: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at)!;
      if (n.callFrame.functionName !== '(root)') frames.push(frameName(n, root));
    }
    stacks.push({ frames: frames.reverse(), micros });
  }
  return stacks;
}

/** Each function's self time (its own frames) and inclusive time (counted once per stack), most first by self time. */
export function functionTimes(stacks: readonly StackTime[]): FunctionTime[] {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const { frames, micros } of stacks) {
    const leaf = frames.at(-1)!;
    self.set(leaf, (self.get(leaf) ?? 0) + micros);
    for (const f of new Set(frames)) total.set(f, (total.get(f) ?? 0) + micros);
  }
  return [...total].map(([name, totalMicros]) => ({ name, selfMicros: self.get(name) ?? 0, totalMicros })).sort((a, b) => b.selfMicros - a.selfMicros);
}

/**
 * Each sample charged to the innermost frame of Cairn's own code on its stack (`src/`),
 * with what it called in libraries and Node: what each of Cairn's functions costs
 * where it is the one to change. Samples without any are charged to `outside Cairn`.
 */
export function ownFunctionTimes(stacks: readonly StackTime[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const { frames, micros } of stacks) {
    const own = frames.findLast((f) => / \(src\//.test(f)) ?? 'outside Cairn (Node, libraries, idle loop)';
    times.set(own, (times.get(own) ?? 0) + micros);
  }
  return new Map([...times].sort((a, b) => b[1] - a[1]));
}

/** A Markdown table of the `top` functions by self time and, separately, by inclusive time, as µs per request. */
export function topFunctionsTable(stacks: readonly StackTime[], requests: number, top: number): string {
  const times = functionTimes(stacks);
  const all = stacks.reduce((sum, s) => sum + s.micros, 0);
  const per = (micros: number): string => `${(micros / requests).toFixed(1)} µs (${((100 * micros) / all).toFixed(1)} %)`;
  const bySelf = times.slice(0, top).map((t) => `| ${t.name.replaceAll('|', '\\|')} | ${per(t.selfMicros)} | ${per(t.totalMicros)} |`);
  const byTotal = times
    .filter((t) => !syntheticFrames.has(t.name))
    .sort((a, b) => b.totalMicros - a.totalMicros)
    .slice(0, top)
    .map((t) => `| ${t.name.replaceAll('|', '\\|')} | ${per(t.totalMicros)} |`);
  return [
    `Sampled ${per(all)} per request (the time between samples, which a busy machine stretches beyond the CPU time: read the shares). By self time:`,
    '',
    '| function | self | inclusive |',
    '| --- | --- | --- |',
    ...bySelf,
    '',
    'By inclusive time:',
    '',
    '| function | inclusive |',
    '| --- | --- |',
    ...byTotal,
    '',
    'By the innermost function of Cairn on the stack (with the library and Node code it called):',
    '',
    '| function | time |',
    '| --- | --- |',
    ...[...ownFunctionTimes(stacks)].slice(0, top).map(([name, micros]) => `| ${name.replaceAll('|', '\\|')} | ${per(micros)} |`),
  ].join('\n');
}
