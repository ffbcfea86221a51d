/** Starts and stops {@link ./bare-koa-server.ts}, the bare server the GET, create-CPU and watch rows are compared with. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ensurePki } from '../src/server/pki.js';
import { trackChild, untrackChild } from './children.js';
import { repoRoot } from './repo-root.js';
import { serverAccess, type ServerAccess } from './server-access.js';

/** The running bare server. */
export interface BareKoa {
  readonly access: ServerAccess;
  readonly pid: number;
  /** Whether it stores creates and serves watches (it was given a database). */
  readonly writes: boolean;
  stop(): Promise<void>;
}

/** The names the bare server's certificate covers, as Cairn's generated one does. */
export const loopbackHosts: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '::1']);

/** Starts the bare server with the PKI in `pkiDir`, generated there first when missing, and its write path on `databaseUrl` when given. */
export async function startBareKoa(pkiDir: string, databaseUrl?: string): Promise<BareKoa> {
  const pki = await ensurePki(pkiDir, { hosts: loopbackHosts });
  const args = ['--import', 'tsx', 'bench/bare-koa-server.ts', pkiDir, ...(databaseUrl === undefined ? [] : [databaseUrl])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  trackChild(child);
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    once(child, 'exit').then(() => {
      throw new Error('the bare Koa server exited before listening');
    }),
  ]);
  lines.close();
  const { port } = JSON.parse(first) as { port: number };
  const access = serverAccess(`https://127.0.0.1:${port}`, pki.servingCaPem, pki.adminCertPem, pki.adminKeyPem);
  return {
    access,
    pid: child.pid!,
    writes: databaseUrl !== undefined,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      untrackChild(child);
    },
  };
}
