/**
 * An OTLP trace receiver for tests: the collector's gRPC `TraceService/Export` on a
 * loopback port, decoding each export with the fields of opentelemetry-proto's trace
 * messages the tests read, and keeping every span with its service's name. Cairn and
 * kube-apiserver export to it as they would to an OpenTelemetry collector.
 */
import { Server, ServerCredentials, status, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** The messages of opentelemetry-proto's `collector/trace/v1` and `trace/v1` the tests read (field numbers as there; the rest is skipped). */
const otlpProto = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  repeated Link links = 13;
  Status status = 15;
}
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;
const exportRequest = protobuf.parse(otlpProto, { keepCase: false }).root.lookupType('otlp.ExportTraceServiceRequest');

/** OTLP's span kinds. */
export const spanKind = { internal: 1, server: 2, client: 3 } as const;

/** One span as exported, ids in hex. */
export interface ReceivedSpan {
  /** Its resource's `service.name`: `cairn`, or `apiserver` for kube-apiserver. */
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  /** When it started and ended, in ns since the epoch (the exporting server's clock). */
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `127.0.0.1:PORT`, as a TracingConfiguration's `endpoint`. */
  readonly endpoint: string;
  /** Every span received so far, in order of arrival. */
  readonly spans: readonly ReceivedSpan[];
  /** How many export calls arrived. */
  readonly exports: number;
  close(): Promise<void>;
}

interface Decoded {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: DecodedSpan[] }[] }[];
}
interface KeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number };
}
interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  links?: { traceId: Uint8Array; spanId: Uint8Array }[];
  status?: { code?: number };
}

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

function attributesOf(pairs: readonly KeyValue[] = []): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const { key, value } of pairs) {
    if (value === undefined) continue;
    const scalar = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue;
    if (scalar !== undefined) result[key] = scalar;
  }
  return result;
}

/** The spans of one export request. */
export function decodeExport(body: Buffer): ReceivedSpan[] {
  // A plain object: only the fields present (proto3's defaults sit on the decoded message's prototype), 64-bit integers as strings (nanoseconds overflow a number).
  const request = exportRequest.toObject(exportRequest.decode(body), { longs: String, defaults: false, arrays: true }) as Decoded;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
        endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const server = new Server();
  const identity = (value: Buffer): Buffer => value;
  server.addService(
    {
      Export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        // An ExportTraceServiceResponse with no partial_success: the empty message.
        responseSerialize: () => Buffer.alloc(0),
        responseDeserialize: identity,
      },
    },
    {
      Export: (call: ServerUnaryCall<Buffer, unknown>, callback: sendUnaryData<unknown>) => {
        exports++;
        try {
          spans.push(...decodeExport(call.request));
        } catch (error) {
          callback({ code: status.INVALID_ARGUMENT, details: (error as Error).message });
          return;
        }
        callback(null, {});
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    endpoint: `127.0.0.1:${port}`,
    spans,
    get exports() {
      return exports;
    },
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** A W3C `traceparent` of a new trace, sampled or not, and its ids. */
export function newTraceparent(sampled = true): { header: string; traceId: string; spanId: string } {
  const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex');
  const spanId = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  return { header: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`, traceId, spanId };
}
