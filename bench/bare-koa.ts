/** Starts and stops {@link ./bare-koa-server.ts}, the bare server the GET row is compared with. */
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
  stop(): Promise<void>;
}

/** The names the bare server's certificate covers, as Cairn's generated one does. */
export const loopbackHosts: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '::1']);

/** Starts the bare server with the PKI in `pkiDir`, generated there first when missing. */
export async function startBareKoa(pkiDir: string): Promise<BareKoa> {
  const pki = await ensurePki(pkiDir, { hosts: loopbackHosts });
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-koa-server.ts', pkiDir], {
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
