/**
 * A client certificate from a CA the server does not trust.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki } from '../../src/server/pki.js';

/**
 * Issues an admin-like certificate from a fresh, unrelated client CA; `caPem` is that
 * CA, for a listener that should trust it at the handshake (a front-proxy CA).
 */
export async function issueOtherCa(): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-other-ca-'));
  try {
    const pki = await ensurePki(dir, { hosts: ['localhost'] });
    return { certPem: pki.adminCertPem, keyPem: pki.adminKeyPem, caPem: pki.clientCaPem };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
