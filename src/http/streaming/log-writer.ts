/**
 * The wire side of a log: text lines as kubelet writes them, each optionally behind
 * the RFC 3339 time it was appended, cut after `limitBytes` even mid-line.
 */
import type { LogLine } from '../../storage/interfaces.js';
import type { ResponseStream } from './response-stream.js';

/** kubelet's timestamp format: RFC 3339 with nine fractional digits, in UTC. */
export function rfc3339Nano(micros: bigint): string {
  const seconds = new Date(Number(micros / 1000n)).toISOString().slice(0, 19);
  return `${seconds}.${(micros % 1_000_000n).toString().padStart(6, '0')}000Z`;
}

/** Options of the text written. */
export interface LogWriterOptions {
  readonly timestamps: boolean;
  readonly limitBytes?: number;
}

/** Writes pages of log lines to a streamed response. */
export class LogWriter {
  readonly #stream: ResponseStream;
  readonly #timestamps: boolean;
  #remaining: number;

  constructor(stream: ResponseStream, options: LogWriterOptions) {
    this.#stream = stream;
    this.#timestamps = options.timestamps;
    this.#remaining = options.limitBytes ?? Infinity;
  }

  /** Writes one page as one chunk; false once `limitBytes` is reached and the log is done. */
  async write(lines: readonly LogLine[]): Promise<boolean> {
    const text = lines.map((line) => `${this.#timestamps ? `${rfc3339Nano(line.appendedAt)} ` : ''}${line.text}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length < this.#remaining) {
      this.#remaining -= bytes.length;
      await this.#stream.write(bytes);
      return true;
    }
    await this.#stream.write(bytes.subarray(0, this.#remaining));
    this.#remaining = 0;
    return false;
  }
}
