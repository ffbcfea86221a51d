/**
 * POST to an object's log: appends lines, sent as JSON `{"step": "fetch", "lines": [...]}`
 * or as a text/plain body with `?step=fetch` (the resource names the stream field).
 */
import { badRequest, unsupportedMediaType } from '../../machinery/errors.js';
import { isPlainObject } from '../../machinery/meta/object.js';
import { successStatus } from '../../machinery/status.js';
import { checkWireType } from '../../machinery/decoding/wire-types.js';
import { decodeBody, mediaType } from '../request/decode-body.js';
import { readBody } from '../request/read-body.js';
import { appendLogMediaTypes } from '../../apis/api-resource.js';
import { respond } from './respond.js';
import type { LogAppender } from '../../registry/endpoint-rest.js';
import { keyOf, type ResourceContext } from './resource-context.js';

/** Lines of a text body: one per line break, a final line break not making an empty last line. */
function textLines(raw: string): string[] {
  return raw === '' ? [] : raw.replace(/\r?\n$/, '').split(/\r?\n/);
}

/** The stream and lines of a JSON body; 400 when it is not `{<stream>: string, lines: string[]}`. */
function jsonLines(raw: string, type: string, streamField: string): { stream: string | undefined; lines: string[] } {
  if (raw.trim() === '') throw badRequest('the body of the request was empty');
  const body = decodeBody(raw, type, ['application/json']);
  if (!isPlainObject(body)) throw badRequest('the body of the request must be a JSON object');
  checkWireType(body, { struct: 'LogAppend', fields: { [streamField]: 'string', lines: { list: 'string' } } }, 'LogAppend');
  const stream = body[streamField] ?? undefined;
  if (!Array.isArray(body.lines)) throw badRequest('lines must be an array of strings');
  // Go decodes a null element of a []string as "".
  const lines = (body.lines as (string | null)[]).map((line) => line ?? '');
  // One element is one line: a line break inside one would make lines the client did not send.
  const broken = lines.findIndex((line) => line.includes('\n'));
  if (broken >= 0) throw badRequest(`lines[${broken}] must not contain a line break`);
  return { stream: stream as string | undefined, lines };
}

/** Answers an append with 201 and a Success Status, as kube answers an eviction. */
export async function appendLogHandler(rc: ResourceContext, rest: LogAppender): Promise<void> {
  const streamField = rest.streamParameter;
  const type = mediaType(rc.ctx.get('Content-Type'));
  if (type !== '' && !(appendLogMediaTypes as readonly string[]).includes(type)) throw unsupportedMediaType(appendLogMediaTypes);
  const raw = await readBody(rc.ctx.req);
  const { stream, lines } =
    type === 'text/plain' ? { stream: rc.query.get(streamField) || undefined, lines: textLines(raw) } : jsonLines(raw, type, streamField);
  const key = keyOf(rc);
  await rest.append(key, stream, lines);
  respond(rc.ctx, 201, successStatus(201, { name: key.name, group: rc.resource.group, kind: rc.resource.plural }), 'json');
}
