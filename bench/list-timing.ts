/** Timed LISTs as a client sees them: to the last byte of the response. */
import https from 'node:https';
import { pipelinesPath } from './pipeline-manifest.js';
import { keepAliveAgent, request, tlsOptions, type ServerAccess } from './server-access.js';

/** One timed response. */
export interface Timed {
  readonly ms: number;
  readonly bytes: number;
}

/**
 * Lists `namespace` in one request, counting the body's bytes as they arrive without
 * keeping them (the client must not be what holds 100,000 objects in memory).
 */
export function listAll(access: ServerAccess, namespace: string): Promise<Timed> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${access.url}${pipelinesPath(namespace)}`,
      { ...tlsOptions(access), agent: false, headers: { Accept: 'application/json' }, timeout: 300_000 },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`LIST ${namespace}: HTTP ${String(res.statusCode)}`));
          else resolve({ ms: performance.now() - start, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`LIST ${namespace}: no answer in 300 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** Lists `namespace` in pages of `limit`, following `continue`; returns the total time and the number of items. */
export async function listPages(access: ServerAccess, namespace: string, limit: number): Promise<Timed & { items: number }> {
  const start = performance.now();
  let bytes = 0;
  let items = 0;
  let token: string | undefined;
  // One connection for every page, as kubectl and informers use one.
  const agent = keepAliveAgent(1);
  try {
    do {
      const query = `?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const response = await request(access, 'GET', `${pipelinesPath(namespace)}${query}`, { agent });
      if (response.status !== 200) throw new Error(`LIST page of ${namespace}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
      const page = JSON.parse(response.text) as { items: unknown[]; metadata: { continue?: string } };
      bytes += Buffer.byteLength(response.text);
      items += page.items.length;
      token = page.metadata.continue || undefined;
    } while (token !== undefined);
  } finally {
    agent.destroy();
  }
  return { ms: performance.now() - start, bytes, items };
}
