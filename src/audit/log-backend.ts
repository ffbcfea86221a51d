/**
 * The log backend of `--audit-log-path`, as kube's `plugin/pkg/audit/log` in its JSON
 * format: one `audit.k8s.io/v1` Event per line. Events are encoded on the request path
 * and written behind it, in batches, so a request never waits for the disk;
 * {@link AuditLogBackend.shutdown} writes what is left before the process exits.
 */
import type { AuditBackend, AuditEvent, AuditResponseStatus } from './audit.js';

/** A response status as metav1.Status, in its field order, with its (empty) metadata. */
function statusV1({ code, status, message, reason, details }: AuditResponseStatus): Record<string, unknown> {
  return {
    metadata: {},
    ...(status ? { status } : {}),
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(details !== undefined ? { details } : {}),
    code,
  };
}

/** The `audit.k8s.io/v1` Event of `event`, its fields in kube's order. */
export function auditEventV1(event: AuditEvent): Record<string, unknown> {
  const { user } = event;
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: event.level,
    auditID: event.auditID,
    stage: event.stage,
    requestURI: event.requestURI,
    verb: event.verb,
    user: {
      username: user.name,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length ? { groups: user.groups } : {}),
      ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
    },
    sourceIPs: event.sourceIPs,
    ...(event.userAgent ? { userAgent: event.userAgent } : {}),
    ...(event.objectRef ? { objectRef: event.objectRef } : {}),
    ...(event.responseStatus ? { responseStatus: statusV1(event.responseStatus) } : {}),
    ...(event.requestObject !== undefined ? { requestObject: event.requestObject } : {}),
    ...(event.responseObject !== undefined ? { responseObject: event.responseObject } : {}),
    requestReceivedTimestamp: event.requestReceivedTimestamp,
    stageTimestamp: event.stageTimestamp,
    ...(event.annotations && Object.keys(event.annotations).length ? { annotations: event.annotations } : {}),
  };
}

/** Where the lines go: a (rotating) file, or stdout. */
export interface AuditLogSink {
  /** Writes the lines in order; calls do not overlap. */
  write(lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** An event the log could not take: the writes are further behind than the backend may buffer. */
export class AuditEventDroppedError extends Error {}

/** How many bytes of events may wait for the disk before new ones are dropped (64 MiB). */
export const defaultMaxBufferedBytes = 64 * 1024 * 1024;

/**
 * Writes audit events as JSON lines to `sink`, behind the requests. As kube's buffered
 * backend, it drops events rather than grow without bound when the sink falls behind,
 * telling `onError` of each.
 */
export class AuditLogBackend implements AuditBackend {
  readonly #sink: AuditLogSink;
  readonly #onError: (error: unknown) => void;
  readonly #maxBufferedBytes: number;
  #queue: string[] = [];
  /** The bytes (as UTF-16 code units, near enough) of the lines queued or being written. */
  #buffered = 0;
  #draining: Promise<void> | undefined;

  /** `onError` hears of lines that could not be written or were dropped (kube logs them and goes on). */
  constructor(sink: AuditLogSink, onError: (error: unknown) => void, maxBufferedBytes = defaultMaxBufferedBytes) {
    this.#sink = sink;
    this.#onError = onError;
    this.#maxBufferedBytes = maxBufferedBytes;
  }

  processEvents(...events: AuditEvent[]): void {
    for (const event of events) {
      const line = `${JSON.stringify(auditEventV1(event))}\n`;
      if (this.#buffered + line.length > this.#maxBufferedBytes) {
        this.#onError(new AuditEventDroppedError(`audit event ${event.auditID} (${event.stage}) dropped: the log is ${this.#buffered} bytes behind`));
        continue;
      }
      this.#buffered += line.length;
      this.#queue.push(line);
    }
    this.#draining ??= this.#drain();
  }

  /** Writes every event processed so far, then closes the sink. */
  async shutdown(): Promise<void> {
    await this.#draining;
    await this.#sink.close();
  }

  async #drain(): Promise<void> {
    // Yields first, so the events of one tick go out in one batch.
    await Promise.resolve();
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        await this.#sink.write(batch);
      } catch (error) {
        this.#onError(error);
      }
      this.#buffered -= batch.reduce((bytes, line) => bytes + line.length, 0);
    }
    this.#draining = undefined;
  }
}

/** Standard output as a sink (`--audit-log-path -`); it is not closed. */
export const stdoutAuditLogSink: AuditLogSink = Object.freeze({
  write: (lines: readonly string[]) =>
    new Promise<void>((resolve, reject) => process.stdout.write(lines.join(''), (error) => (error ? reject(error) : resolve()))),
  close: () => Promise.resolve(),
});
