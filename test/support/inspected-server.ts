/**
 * A Cairn server in a child process with the V8 inspector open, so a test can force a
 * full garbage collection in the server and read what its heap still holds, without
 * any test hook in the server's code.
 */
import https from 'node:https';
import { spawnServer } from './server-process.js';
import { requestServer, type RequestOptions, type ServerEndpoint, type TestResponse } from './test-server.js';

/** A running child server and the inspector session attached to it. */
export interface InspectedServer extends ServerEndpoint {
  /** Makes a request as the admin user (a connection per request; TLS sessions resumed). */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Evaluates `expression` in the server's main context and returns its value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Collects garbage fully (twice: finalizers run between) and reports what the heap still holds. */
  heap(): Promise<HeapUse>;
  /** The number of client connections the server holds open on its serving port. */
  connections(): Promise<number>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/** What a server's V8 heap holds after a full garbage collection, in bytes. */
export interface HeapUse {
  /** `process.memoryUsage().heapUsed`: objects, compiled code and its metadata. */
  readonly used: number;
  /**
   * The spaces that hold JavaScript objects (new, old, large object), leaving out
   * compiled code and bytecode, which grow as the optimizer warms up whatever the
   * program retains.
   */
  readonly objects: number;
}

/** Options of an inspected server. */
export interface InspectedServerOptions {
  /** PostgreSQL URL; PGlite in a fresh data directory otherwise. */
  readonly databaseUrl?: string;
  readonly args?: readonly string[];
}

/** Evaluated in the server: its HeapUse, from `v8.getHeapSpaceStatistics()`. */
const heapUseExpression = `(() => {
  const spaces = process.getBuiltinModule('v8').getHeapSpaceStatistics();
  const objects = spaces.filter((s) => !/^(code|trusted|read_only)_/.test(s.space_name)).reduce((sum, s) => sum + s.space_used_size, 0);
  return { used: process.memoryUsage().heapUsed, objects };
})()`;

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
class InspectorSession {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, { resolve: (result: any) => void; reject: (error: Error) => void }>();
  #nextId = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (message) => {
      const reply = JSON.parse(String(message.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (reply.id === undefined) return;
      const call = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.error) call?.reject(new Error(reply.error.message));
      else call?.resolve(reply.result);
    });
    socket.addEventListener('close', () => {
      for (const call of this.#pending.values()) call.reject(new Error('the inspector session closed'));
      this.#pending.clear();
    });
  }

  static async connect(url: string): Promise<InspectorSession> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`cannot connect to the inspector at ${url}`)), { once: true });
    });
    return new InspectorSession(socket);
  }

  call(method: string, params: object = {}): Promise<any> {
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#socket.close();
  }
}

/** Starts `node --inspect src/server/main.ts` on a free port and waits until it is ready. */
export async function startInspectedServer(options: InspectedServerOptions = {}): Promise<InspectedServer> {
  const server = await spawnServer(
    [
      // The heap measured is the server's: no in-process clients (the sample controller, the garbage collector's graph).
      '--no-controller',
      '--garbage-collector=off',
      '--log-level',
      'info',
      ...(options.databaseUrl ? ['--database-url', options.databaseUrl] : []),
      ...(options.args ?? []),
    ],
    { nodeArgs: ['--expose-gc', '--inspect=127.0.0.1:0'] },
  );
  let endpoint: ServerEndpoint;
  let session: InspectorSession;
  try {
    endpoint = await server.endpoint();
    const inspectorUrl = /ws:\/\/\S+/.exec(server.stderr())?.[0];
    if (!inspectorUrl) throw new Error(`no inspector URL in the server's output:\n${server.stderr()}`);
    session = await InspectorSession.connect(inspectorUrl);
  } catch (error) {
    await server.stop();
    throw error;
  }
  // No keep-alive: between requests the server holds no connection of ours, so connections() counts what the test keeps open.
  const agent = new https.Agent({ keepAlive: false });
  const port = new URL(endpoint.url).port;
  const inspector = session;
  const evaluate = async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await inspector.call('Runtime.evaluate', { expression, returnByValue: true });
    if (exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(exceptionDetails)}`);
    return result.value as T;
  };
  return {
    ...endpoint,
    request: (method, path, ro = {}) => requestServer(endpoint, method, path, { agent, ...ro }),
    evaluate,
    async heap() {
      // Two rounds: objects whose finalizers (FinalizationRegistry, WeakRef targets) ran in the first go in the second.
      await inspector.call('HeapProfiler.collectGarbage');
      await inspector.call('HeapProfiler.collectGarbage');
      return evaluate<HeapUse>(heapUseExpression);
    },
    // Handles, not resource names: database connections are TCP sockets too.
    connections: () => evaluate<number>(`process._getActiveHandles().filter((h) => h.localPort === ${port}).length`),
    async destroy() {
      inspector.close();
      agent.destroy();
      await server.stop();
    },
  };
}
