/**
 * What of an answer the differential test compares, with what legitimately differs
 * between two servers taken out. Each rule says why it exists; anything not named here
 * is compared as the server sent it.
 */
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../src/machinery/meta/object.js';
import type { Answer } from './client.js';

/** An answer as compared. */
export interface Normalized {
  readonly status: number;
  /** The media type without parameters: Cairn adds `charset=utf-8`, which JSON (UTF-8 by definition) clients ignore. */
  readonly mediaType: string;
  readonly warnings: readonly string[];
  /** The JSON or YAML body normalized; a watch's events in order; a body in neither format as a placeholder. */
  readonly body: unknown;
}

/**
 * Values that differ between any two servers, or two runs: replaced by a placeholder
 * naming the key, so their presence is still compared. uids are random; resourceVersions
 * count each server's writes (etcd's revisions are the cluster's, Cairn's its database's);
 * times and continue tokens (which embed a resourceVersion) follow from those.
 */
const volatileKeys = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'time', 'continue']);

/** The same kinds of values inside messages (a precondition's uid, a Conflict's resourceVersion). */
const volatileText: readonly [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>'],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  [/(ResourceVersion in (?:precondition|object meta): |the ResourceVersion in record \()\d+/g, '$1<rv>'],
  // An object quoted as JSON inside a message (a patch's strict decoding error).
  [/(\\?"resourceVersion\\?":\\?")\d+/g, '$1<rv>'],
];

/** Rewrites the custom resource's group to cairn.dev, in apiVersions, messages and details alike: the one difference by construction. */
function text(value: string, group: string): string {
  let result = value.replaceAll(group, 'cairn.dev');
  for (const [pattern, replacement] of volatileText) result = result.replace(pattern, replacement);
  return result;
}

/** Walks a JSON value, applying the rules; object keys come out sorted, so that diffs line up (key order means nothing in JSON). */
function walk(value: unknown, group: string): unknown {
  if (typeof value === 'string') return text(value, group);
  if (Array.isArray(value)) return value.map((item) => walk(item, group));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const child = value[key];
    out[key] = volatileKeys.has(key) && typeof child === 'string' && child !== '' ? `<${key}>` : walk(child, group);
  }
  // An empty continue token is no token: custom resource lists write `"continue": ""`, built-in lists (and Cairn) leave it out.
  if (out.continue === '') delete out.continue;
  // A generated name is random; that one was generated is what counts.
  const meta = out.metadata;
  if (isPlainObject(meta) && typeof meta.generateName === 'string' && typeof meta.name === 'string' && meta.name.startsWith(meta.generateName)) {
    out.metadata = { ...meta, name: `${meta.generateName}<generated>` };
  }
  // A Table's date cells are ages ("3s"), which depend on when each server answered.
  if (value.kind === 'Table' && Array.isArray(out.columnDefinitions)) return withAges(out, dateColumns(out.columnDefinitions));
  return out;
}

/** Which columns of a Table are dates, by index. */
function dateColumns(columnDefinitions: readonly unknown[]): ReadonlySet<number> {
  return new Set(columnDefinitions.flatMap((column: any, i) => (column?.type === 'date' ? [i] : [])));
}

/** `table` with the cells of its `dates` columns replaced by a placeholder. */
function withAges(table: Record<string, unknown>, dates: ReadonlySet<number>): Record<string, unknown> {
  if (!Array.isArray(table.rows)) return table;
  const rows = table.rows.map((row: any) =>
    Array.isArray(row?.cells) ? { ...row, cells: row.cells.map((cell: unknown, i: number) => (dates.has(i) ? '<age>' : cell)) } : row,
  );
  return { ...table, rows };
}

/**
 * A watch's Table events after the first carry no columnDefinitions (`noHeaders`): their date
 * cells are found by the columns the first one defined.
 */
function agedEvents(events: readonly any[]): any[] {
  let dates: ReadonlySet<number> | undefined;
  return events.map((event) => {
    const table = event?.object;
    if (table?.kind !== 'Table') return event;
    if (Array.isArray(table.columnDefinitions)) dates = dateColumns(table.columnDefinitions);
    else if (dates) return { ...event, object: withAges(table, dates) };
    return event;
  });
}

/**
 * The events of a watch's answer, one JSON document per line, each `{type, object}`, less
 * the bookmarks that only carry a resourceVersion: kube's watch cache sends those on its own
 * ticks (every minute, and each second from 2 s before the watch's timeout), so whether a
 * short watch gets one depends on timing. The bookmark ending the initial events is kept.
 */
function events(body: string, group: string): unknown[] {
  const parsed = body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line): any => {
      try {
        return walk(JSON.parse(line), group);
      } catch {
        return `<not JSON: ${line.slice(0, 80)}>`;
      }
    })
    .filter((event) => !(event?.type === 'BOOKMARK' && event.object?.metadata?.annotations === undefined));
  return agedEvents(parsed);
}

/** Normalizes `answer`, from a server whose Pipelines are in `group`; `watch` when it was a watch. */
export function normalize(answer: Answer, group: string, watch: boolean): Normalized {
  const mediaType = answer.contentType.split(';')[0].trim().toLowerCase();
  const raw = answer.body.toString('utf8');
  let body: unknown;
  if (watch && answer.status === 200 && mediaType === 'application/json') body = events(raw, group);
  else if (answer.json !== undefined) body = walk(answer.json, group);
  else if (mediaType === 'application/yaml') body = walk(parseYaml(raw), group);
  else if (mediaType.startsWith('text/') || raw === '') body = text(raw, group);
  // Binary (protobuf): its bytes hold uids and times; that it came is what is compared.
  else body = `<${mediaType || 'untyped'} body>`;
  return { status: answer.status, mediaType, warnings: answer.warnings.map((warning) => text(warning, group)), body };
}
