/**
 * A Protocol Buffers client for tests: requests with binary bodies, and watches whose
 * length-delimited frames are decoded as kube's client-go reads them.
 */
import { protobufScheme } from '../../src/apis/protobuf.js';
import { servedGroups } from '../../src/apis/served-groups.js';
import { until } from './json-lines.js';
import { requestTo, type ServerEndpoint } from './test-server.js';

/** The media type of Kubernetes' Protocol Buffers. */
export const protobuf = 'application/vnd.kubernetes.protobuf';

/** The scheme the server writes with, to encode request bodies and decode responses. */
export const scheme = protobufScheme(servedGroups);

/** A response with its body as bytes. */
export interface BinaryResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** Makes one request as the admin user with a binary (or no) body. */
export function requestBytes(
  server: ServerEndpoint,
  method: string,
  path: string,
  options: { body?: Buffer; headers?: Record<string, string> } = {},
): Promise<BinaryResponse> {
  const headers = { ...(options.body ? { 'Content-Length': String(options.body.length) } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

/** One decoded watch event. */
export interface ProtobufEvent {
  readonly type: string;
  readonly object: any;
}

/** An open protobuf watch. */
export interface ProtobufWatch {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly events: ProtobufEvent[];
  /** Waits until `count` events arrived. */
  waitFor(count: number, ms?: number): Promise<ProtobufEvent[]>;
  close(): void;
}

/** Opens a watch asking for protobuf (`accept` may add other ranges) and splits its stream into frames: a 4-byte big-endian length, then a WatchEvent. */
export function openProtobufWatch(server: ServerEndpoint, path: string, accept = protobuf): Promise<ProtobufWatch> {
  return new Promise((resolve, reject) => {
    const req = requestTo(server, path, { agent: false, headers: { Accept: accept } }, (res) => {
      const events: ProtobufEvent[] = [];
      const listeners = new Set<() => void>();
      let pending = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
          const length = pending.readUInt32BE(0);
          events.push(scheme.decodeWatchEvent(pending.subarray(4, 4 + length)));
          pending = pending.subarray(4 + length);
        }
        listeners.forEach((l) => l());
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        events,
        waitFor: async (count, ms = 10_000) => {
          await until(
            listeners,
            () => events.length >= count,
            ms,
            () => `${count} events, got ${JSON.stringify(events.map((e) => e.type))}`,
          );
          return events;
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
