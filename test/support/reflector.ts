/**
 * A watcher that behaves as a client's reflector does when its database fails under it:
 * whenever its watch stream ends it watches again from the last resourceVersion it read,
 * until stopped or answered 410 Gone (when a real client would relist). Tests check what
 * it saw: every write exactly once, in resourceVersion order, or 410.
 */
import https from 'node:https';
import type { ServerEndpoint } from './test-server.js';

/** One event a reflector read. */
export interface ReflectedEvent {
  readonly type: string;
  readonly name: string;
  readonly rv: bigint;
}

/** Keeps watching `path` on `server` from `resourceVersion`. */
export class Reflector {
  readonly events: ReflectedEvent[] = [];
  /** Answered 410 Gone: a real client would relist. */
  expired = false;
  /** How many watch requests it made (1 + re-watches). */
  watches = 0;
  #stopped = false;
  #request: ReturnType<typeof https.get> | undefined;

  constructor(
    readonly server: Required<ServerEndpoint>,
    readonly path: string,
    private resourceVersion: string,
  ) {
    void this.#run();
  }

  async #run(): Promise<void> {
    while (!this.#stopped && !this.expired) {
      await this.#watchOnce().catch(() => undefined);
      if (!this.#stopped && !this.expired) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** One watch request, until its stream ends. */
  #watchOnce(): Promise<void> {
    const { servingCaPem: ca, adminCertPem: cert, adminKeyPem: key } = this.server.pki;
    this.watches++;
    return new Promise((resolve, reject) => {
      const req = https.get(`${this.server.url}${this.path}?watch=true&resourceVersion=${this.resourceVersion}`, { ca, cert, key, agent: false }, (res) => {
        if (res.statusCode === 410) this.expired = true;
        if (res.statusCode !== 200) {
          res.resume();
          res.once('end', resolve);
          return;
        }
        let pending = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop()!;
          for (const line of lines.filter(Boolean)) {
            const event = JSON.parse(line) as { type: string; object: { code?: number; metadata: { name: string; resourceVersion: string } } };
            if (event.type === 'ERROR') {
              if (event.object.code === 410) this.expired = true;
              continue;
            }
            this.resourceVersion = event.object.metadata.resourceVersion;
            if (event.type !== 'BOOKMARK') this.events.push({ type: event.type, name: event.object.metadata.name, rv: BigInt(this.resourceVersion) });
          }
        });
        res.once('end', resolve);
        res.once('aborted', resolve);
        res.once('error', resolve);
      });
      this.#request = req;
      req.on('error', reject);
    });
  }

  /** Whether it has seen an event of every name in `names`. */
  missing(names: Iterable<string>): string[] {
    const seen = new Set(this.events.map((e) => e.name));
    return [...names].filter((name) => !seen.has(name));
  }

  stop(): void {
    this.#stopped = true;
    this.#request?.destroy();
  }
}
