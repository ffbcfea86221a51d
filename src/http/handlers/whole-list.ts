/**
 * A whole list (a list without `limit`, what deletecollection deleted) written a chunk
 * at a time, in every format and representation, so the server holds two chunks of it,
 * never the collection. The first chunk is read before anything is sent, so what
 * refuses the list (410, 504, a refused deletion) is still a Status; a later failure
 * cuts the response rather than end it as a shorter list.
 */
import type { KubeObject } from '../../machinery/meta/object.js';
import type { ListOptions } from '../../registry/request-options.js';
import type { Lister } from '../../registry/endpoint-rest.js';
import type { ListPage } from '../../registry/store.js';
import { addAuditAnnotations } from '../filters/audit-context.js';
import { respond } from './respond.js';
import { jsonListEncoder } from '../serializers/json-serializer.js';
import type { ListEncoder } from '../serializers/serializer.js';
import { serializerOf } from '../serializers/serializers.js';
import { ResponseStream } from '../streaming/response-stream.js';
import type { ResourceContext } from './resource-context.js';

/** How many objects a whole list reads and writes at a time. */
export const listChunk = 500;

/**
 * The annotation of an audit event whose response object was left out (kube's truncate
 * backend's): a list longer than a chunk is streamed, never held whole for the event.
 */
const auditTruncated = { 'audit.k8s.io/truncated': 'true' };

/** A whole list in the storage version's JSON, written from the objects' stored text. */
export async function answerWholeStoredJson(rc: ResourceContext, chunks: AsyncGenerator<ListPage<string>>): Promise<void> {
  const first = await firstChunk(chunks);
  const envelope = rc.representation.listParts({ resourceVersion: first.resourceVersion }).envelope;
  await streamChunks(rc, jsonListEncoder(envelope, 'items', true), first, chunks, (items) => items);
}

/**
 * A whole list of objects, `chunks` read from the snapshot `selection` names. A list of
 * one chunk is answered as one value (and audited whole); a longer one is streamed.
 * Protocol Buffers' envelope is prefixed with the length of everything inside it, so
 * there the items are encoded twice: once to measure them, then again as the snapshot
 * is read a second time, at the first chunk's resourceVersion exactly.
 */
export async function answerWholeList(rc: ResourceContext, rest: Lister, selection: ListOptions, chunks: AsyncGenerator<ListPage<KubeObject>>): Promise<void> {
  const first = await firstChunk(chunks);
  const listMeta = { resourceVersion: first.resourceVersion };
  const parts = rc.representation.listParts(listMeta);
  const encode = (items: readonly KubeObject[]) => parts.items(items);
  const second = await chunks.next();
  if (second.done) {
    respond(rc.ctx, 200, rc.representation.list(first.items, listMeta), rc.output.format);
    return;
  }
  addAuditAnnotations(rc.ctx, auditTruncated);
  const encoder = serializerOf(rc.output.format).listEncoder(parts.envelope, parts.key);
  const remaining = prepended(second.value, chunks);
  if (!encoder.needsItemsLength) return streamChunks(rc, encoder, first, remaining, encode);
  let itemsLength = byteLength(encoder.items(encode(first.items), true));
  for await (const chunk of remaining) itemsLength += byteLength(encoder.items(encode(chunk.items), false));
  const snapshot = { ...selection, limit: undefined, continue: undefined, resourceVersion: first.resourceVersion, resourceVersionMatch: 'Exact' as const };
  const again = rest.listInChunks(rc.namespace, snapshot, listChunk);
  await streamChunks(rc, encoder, await firstChunk(again), again, encode, itemsLength);
}

const byteLength = (encoded: Buffer | string): number => (typeof encoded === 'string' ? Buffer.byteLength(encoded) : encoded.length);

async function firstChunk<Item>(chunks: AsyncGenerator<ListPage<Item>>): Promise<ListPage<Item>> {
  const first = await chunks.next();
  if (first.done) throw new Error('a list yields at least one chunk');
  return first.value;
}

/** `first`, then the rest of `chunks`. */
async function* prepended<Item>(first: ListPage<Item>, chunks: AsyncGenerator<ListPage<Item>>): AsyncGenerator<ListPage<Item>> {
  yield first;
  yield* chunks;
}

/**
 * Writes `first` and the chunks after it as one list, each chunk's items made the list's by
 * `encode`: the list's envelope, then its items as they come, then its end, in the
 * serializer's own encoding (`ListEncoder`). The response is the document an unpaged list
 * answers, but the server holds one chunk of it at a time. A failure cuts the response: a
 * list that could not be read to its end must not look complete.
 */
async function streamChunks<Item>(
  rc: ResourceContext,
  encoder: ListEncoder,
  first: ListPage<Item>,
  rest: AsyncIterable<ListPage<Item>>,
  encode: (items: readonly Item[]) => readonly unknown[],
  itemsLength?: number,
): Promise<void> {
  rc.ctx.respond = false;
  const stream = new ResponseStream(rc.ctx.res);
  let firstItems = true;
  const writeItems = async (items: readonly unknown[]): Promise<void> => {
    if (items.length === 0) return;
    await stream.write(encoder.items(items, firstItems));
    firstItems = false;
  };
  try {
    stream.open(serializerOf(rc.output.format).mediaType);
    await stream.write(encoder.head(itemsLength));
    await writeItems(encode(first.items));
    for await (const chunk of rest) await writeItems(encode(chunk.items));
    await stream.write(encoder.tail);
    stream.end();
  } catch (error) {
    stream.abort();
    throw error;
  }
}
