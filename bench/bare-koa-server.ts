/**
 * The GET row's limit: a bare Koa app that answers every request with a small constant
 * JSON, on Cairn's own listener (`src/server/serving.ts`: HTTP/2 and HTTP/1.1, client
 * certificates requested) with a PKI generated as Cairn generates its own. Run as a
 * process of its own, like the server it stands beside:
 * `node --import tsx bench/bare-koa-server.ts PKI_DIR`; it prints `{"port":N}` once listening.
 */
import Koa from 'koa';
import { ensurePki } from '../src/server/pki.js';
import { listen } from '../src/server/serving.js';
import { loopbackHosts } from './bare-koa.js';

/** What it answers: about the size of a small Status. */
const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });

async function main(): Promise<void> {
  const pkiDir = process.argv[2];
  if (!pkiDir) throw new Error('usage: bare-koa-server.ts PKI_DIR');
  const pki = await ensurePki(pkiDir, { hosts: loopbackHosts });
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  const listener = await listen(app.callback(), { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems: [pki.clientCaPem] }, '127.0.0.1', 0);
  process.stdout.write(`${JSON.stringify({ port: listener.port })}\n`);
  const stop = (): void => void listener.close(1000).then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
