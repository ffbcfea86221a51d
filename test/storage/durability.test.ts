/**
 * "A successful write is durable once acknowledged": the server runs as a child
 * process, takes a burst of concurrent writes, and is killed with SIGKILL the instant
 * the last of them is answered. A new process on the same data (PGlite directory or
 * PostgreSQL database) must serve every acknowledged write as it was acknowledged, and
 * allocate resourceVersions above every one it acknowledged before.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backends, pipeline, requestServer, type Backend } from '../support/test-server.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

const namespace = 'durability';
const pipelinesPath = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
const runnerClassesPath = '/apis/cairn.dev/v1/runnerclasses';

/** A server child process and an admin client for it. */
interface DurableServer {
  request(method: string, path: string, body?: unknown): Promise<Reply>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

interface Reply {
  readonly status: number;
  readonly json: any;
  readonly text: string;
}

const running = new Set<ServerProcess>();

/** Starts the server on `dataDir` (kept for the next start) and waits for its "ready" line. */
async function startServer(dataDir: string, databaseUrl: string | undefined): Promise<DurableServer> {
  // Without the sample controller: its status writes would change the objects the test compares.
  const server = await spawnServer(['--no-controller', ...(databaseUrl ? ['--database-url', databaseUrl] : [])], { dataDir, keepDataDir: true });
  running.add(server);
  const endpoint = await server.endpoint();
  const { servingCaPem: ca, adminCertPem: cert, adminKeyPem: key } = endpoint.pki!;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca, cert, key });
  return {
    request: (method, path, body) => requestServer(endpoint, method, path, { body, agent }),
    async kill() {
      server.child.kill('SIGKILL');
      agent.destroy();
      await server.exited;
      running.delete(server);
    },
  };
}

/** What one acknowledged write left behind. */
interface Acknowledged {
  readonly path: string;
  /** The object as the server answered the last acknowledged write; undefined once deleted. */
  object: any;
  /** The resourceVersion of that write (the deletion's for a deleted object). */
  resourceVersion: bigint;
}

function runnerClass(name: string, i: number) {
  return { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name }, spec: { image: `runner:${i}`, maxReplicas: i } };
}

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text}`);
}

describe.each(backends)('durability on %s', (backend: Backend) => {
  let dataDir: string;
  let databaseUrl: string | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-durability-'));
    databaseUrl = backend === 'postgres' ? await testDatabaseUrl() : undefined;
  });

  afterEach(async () => {
    await Promise.all([...running].map((server) => server.stop()));
    running.clear();
  });

  afterAll(async () => {
    if (dataDir && existsSync(dataDir)) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every write acknowledged before kill -9, and allocates resourceVersions above them', { timeout: 240_000 }, async () => {
    const first = await startServer(dataDir, databaseUrl);
    const acked = new Map<string, Acknowledged>();
    /** Creates whose answer never came: after the kill each is either absent or complete. */
    const unanswered = new Map<string, any>();
    let killed = false;
    let killing: Promise<void> | undefined;

    const record = (path: string, reply: Reply, deleted = false): void => {
      acked.set(path, {
        path,
        object: deleted ? undefined : reply.json,
        resourceVersion: BigInt(reply.json.metadata.resourceVersion),
      });
    };

    // 200 Pipelines and 20 RunnerClasses created at once; a quarter of the Pipelines
    // are then updated and a tenth deleted, each as soon as its create is answered.
    const tasks: Array<() => Promise<void>> = [];
    for (let i = 0; i < 200; i++) {
      tasks.push(async () => {
        const name = `p-${String(i).padStart(3, '0')}`;
        const path = `${pipelinesPath}/${name}`;
        const body = pipeline(
          name,
          { replicas: (i % 5) + 1, steps: [{ name: 'run', image: 'alpine:3.20', command: ['sh', '-c', `echo ${i}`] }] },
          { n: String(i) },
        );
        const created = await first.request('POST', pipelinesPath, body);
        expectStatus(created, 201, `create ${name}`);
        record(path, created);
        if (i % 4 === 0) {
          const changed = structuredClone(created.json);
          changed.spec.replicas += 10;
          changed.metadata.labels.updated = 'yes';
          const updated = await first.request('PUT', path, changed);
          expectStatus(updated, 200, `update ${name}`);
          expect(BigInt(updated.json.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.json.metadata.resourceVersion));
          record(path, updated);
        } else if (i % 10 === 3) {
          const deleted = await first.request('DELETE', path);
          expectStatus(deleted, 200, `delete ${name}`);
          record(path, deleted, true);
        }
      });
    }
    for (let i = 0; i < 20; i++) {
      tasks.push(async () => {
        const name = `rc-${String(i).padStart(2, '0')}`;
        const created = await first.request('POST', runnerClassesPath, runnerClass(name, i));
        expectStatus(created, 201, `create runnerclass ${name}`);
        record(`${runnerClassesPath}/${name}`, created);
      });
    }

    const failures: unknown[] = [];
    // Background writers keep the server busy until the kill, so it dies mid-write.
    const background = Array.from({ length: 4 }, async (_, w) => {
      for (let n = 0; !killed; n++) {
        const name = `bg-${w}-${n}`;
        const body = pipeline(name, { replicas: n });
        unanswered.set(`${pipelinesPath}/${name}`, body);
        // Only the kill may cut a request short: an error before it is a failure.
        const reply = await first.request('POST', pipelinesPath, body).catch((error: unknown) => {
          if (!killed) failures.push(error);
          return undefined;
        });
        if (reply === undefined) return;
        // A 201 that raced the kill was acknowledged all the same: it must survive like any other.
        if (reply.status === 201) {
          unanswered.delete(`${pipelinesPath}/${name}`);
          record(`${pipelinesPath}/${name}`, reply);
        } else if (!killed) {
          failures.push(new Error(`create ${name}: expected 201, got ${reply.status}: ${reply.text}`));
          return;
        }
        if (killed) return;
      }
    });

    let remaining = tasks.length;
    await new Promise<void>((resolve) => {
      for (const task of tasks) {
        task().then(
          () => {
            // The last acknowledgement: kill at once, in the same tick.
            if (--remaining === 0) {
              killed = true;
              killing = first.kill();
              resolve();
            }
          },
          (error: unknown) => {
            failures.push(error);
            if (--remaining === 0) {
              killed = true;
              killing = first.kill();
              resolve();
            }
          },
        );
      }
    });
    await killing;
    await Promise.all(background);
    expect(failures).toEqual([]);
    expect(acked.size).toBeGreaterThanOrEqual(220);
    // The premise: the server died with writes in flight, not between them.
    expect(unanswered.size).toBeGreaterThan(0);

    const second = await startServer(dataDir, databaseUrl);
    try {
      const maxAcked = [...acked.values()].reduce((max, a) => (a.resourceVersion > max ? a.resourceVersion : max), 0n);

      // Every acknowledged object reads back exactly as acknowledged; every acknowledged delete stays deleted.
      const problems: string[] = [];
      await Promise.all(
        [...acked.values()].map(async (a) => {
          const reply = await second.request('GET', a.path);
          if (a.object === undefined) {
            if (reply.status !== 404) problems.push(`${a.path}: deleted at ${a.resourceVersion} but GET answered ${reply.status}`);
            return;
          }
          if (reply.status !== 200) {
            problems.push(`${a.path}: acknowledged at ${a.resourceVersion} but GET answered ${reply.status}: ${reply.text}`);
            return;
          }
          try {
            expect(reply.json).toEqual(a.object);
          } catch {
            problems.push(`${a.path}: acknowledged ${JSON.stringify(a.object)}\n  read back ${reply.text}`);
          }
        }),
      );
      // A create the server never answered may or may not have committed, but never by halves.
      await Promise.all(
        [...unanswered].map(async ([path, body]) => {
          const reply = await second.request('GET', path);
          if (reply.status === 404) return;
          if (reply.status !== 200 || !isDeepStrictEqual(reply.json.spec, body.spec)) {
            problems.push(`${path}: unanswered create read back as ${reply.status} ${reply.text}`);
          }
        }),
      );
      expect(problems).toEqual([]);

      // The lists hold exactly the surviving objects, at a resourceVersion no older than any acknowledged write.
      const pipelines = await second.request('GET', pipelinesPath);
      expectStatus(pipelines, 200, 'list pipelines');
      const listed = new Set<string>(pipelines.json.items.map((o: any) => `${pipelinesPath}/${o.metadata.name}`));
      const expected = new Set([...acked.values()].filter((a) => a.object !== undefined && a.path.startsWith(pipelinesPath)).map((a) => a.path));
      expect([...expected].filter((p) => !listed.has(p))).toEqual([]);
      expect([...listed].filter((p) => !expected.has(p) && !unanswered.has(p))).toEqual([]);
      expect(BigInt(pipelines.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(maxAcked);
      const classes = await second.request('GET', runnerClassesPath);
      expectStatus(classes, 200, 'list runnerclasses');
      // And the class the first start seeded.
      const classNames = [...Array.from({ length: 20 }, (_, i) => `rc-${String(i).padStart(2, '0')}`), 'standard'];
      expect(classes.json.items.map((o: any) => o.metadata.name).sort()).toEqual(classNames);
      const reported = [...pipelines.json.items, ...classes.json.items].map((o: any) => BigInt(o.metadata.resourceVersion));

      // New writes get resourceVersions above everything acknowledged or reported before.
      const fresh = await second.request('POST', pipelinesPath, pipeline('after-restart'));
      expectStatus(fresh, 201, 'create after restart');
      const updatedPath = `${pipelinesPath}/p-001`;
      const current = await second.request('GET', updatedPath);
      const changed = structuredClone(current.json);
      changed.spec.paused = true;
      const update = await second.request('PUT', updatedPath, changed);
      expectStatus(update, 200, 'update after restart');
      const newClass = await second.request('POST', runnerClassesPath, runnerClass('rc-after-restart', 1));
      expectStatus(newClass, 201, 'create runnerclass after restart');
      const highestReported = reported.reduce((max, rv) => (rv > max ? rv : max), maxAcked);
      for (const reply of [fresh, update, newClass]) {
        expect(BigInt(reply.json.metadata.resourceVersion)).toBeGreaterThan(highestReported);
      }
    } finally {
      await second.kill();
    }
  });
});
