/**
 * Reading the front-proxy and client CAs, allowed names and header names from kube-
 * system/extension-apiserver-authentication, and following its changes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki, type Pki } from '../server/pki.js';
import { ClusterAuthentication, parseClusterAuthentication, type ClusterAuthenticationInfo } from './cluster-authentication.js';
import type { RestResponse } from '../machinery/kubeclient/rest-client.js';
import type { RawWatchEvent } from '../machinery/kubeclient/watch-events.js';

describe('kube-system/extension-apiserver-authentication', () => {
  let dir: string;
  let pki: Pki;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-cluster-authn-'));
    pki = await ensurePki(join(dir, 'pki'), { hosts: ['localhost'] });
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const lf = (pem: string) => `${pem.replaceAll('\r\n', '\n').trim()}\n`;
  const data = (allowedNames: string[]) => ({
    'client-ca-file': pki.clientCaPem,
    'requestheader-client-ca-file': lf(pki.servingCaPem),
    'requestheader-allowed-names': JSON.stringify(allowedNames),
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    'requestheader-uid-headers': '["X-Remote-Uid"]',
  });

  it('reads the CAs with LF line ends and the header settings as JSON arrays', () => {
    expect(pki.clientCaPem).toContain('\r\n');
    expect(parseClusterAuthentication(data(['front-proxy-client']))).toEqual({
      clientCaPem: lf(pki.clientCaPem),
      requestHeader: {
        clientCaPems: [lf(pki.servingCaPem)],
        allowedNames: ['front-proxy-client'],
        usernameHeaders: ['X-Remote-User'],
        uidHeaders: ['X-Remote-Uid'],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
      },
    });
    // Before 1.32 kube-apiserver published no uid headers; an empty value is an empty list.
    expect(parseClusterAuthentication({ ...data([]), 'requestheader-uid-headers': '' }).requestHeader?.uidHeaders).toEqual([]);
    expect(parseClusterAuthentication({ 'client-ca-file': pki.clientCaPem })).toEqual({ clientCaPem: lf(pki.clientCaPem) });
    expect(() => parseClusterAuthentication({ ...data([]), 'requestheader-allowed-names': 'front-proxy-client' })).toThrow();
    expect(() => parseClusterAuthentication({ 'client-ca-file': 'nonsense' })).toThrow(/no certificate/);
  });

  it('rebuilds on a watched change, not when the same CAs come back with CRLF, watches on after a watch ends, re-reads after 410 Gone', async () => {
    const configMap = (names: string[], rv: string, crlf = false) => {
      const d: Record<string, string> = data(names);
      if (crlf) d['requestheader-client-ca-file'] = d['requestheader-client-ca-file'].replaceAll('\n', '\r\n');
      return { metadata: { resourceVersion: rv }, data: d };
    };
    const changes: ClusterAuthenticationInfo[] = [];
    const watches: string[] = [];
    let reads = 0;
    let events: RawWatchEvent[][] = [
      [
        { type: 'MODIFIED', object: configMap(['a'], '2', true) },
        { type: 'MODIFIED', object: configMap(['a', 'b'], '3') },
      ],
      [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 3 (15)' } }],
      [],
    ];
    const errors: Error[] = [];
    const client = {
      request: async (): Promise<RestResponse> => ({ status: 200, body: configMap(['a'], String(++reads * 10)) }),
      watch: async function* (path: string, signal: AbortSignal) {
        watches.push(path);
        const batch = events.shift();
        yield* batch ?? [];
        // The last batch stays open until the source stops; the ones before end, as a watch that timed out.
        if (events.length === 0) await new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
    };
    const trust = new ClusterAuthentication({
      client,
      requestHeader: true,
      onChange: (info) => changes.push(info),
      onError: (error) => errors.push(error),
      retryMs: 1,
    });
    expect(await trust.start()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(changes.map((c) => c.requestHeader?.allowedNames)).toEqual([['a'], ['a', 'b'], ['a']]);
    expect(trust.clientCaPems()).toEqual([lf(pki.clientCaPem), lf(pki.servingCaPem)]);
    expect(watches[0]).toContain('resourceVersion=10');
    expect(watches[0]).toContain('fieldSelector=metadata.name%3Dextension-apiserver-authentication');
    // The first watch ended: watched again from the last change seen; that was too old: read again, silently, and watched from there.
    expect(watches[1]).toContain('resourceVersion=3');
    expect(watches[2]).toContain('resourceVersion=20');
    expect(errors).toEqual([]);
    await trust.stop();
    events = [];
  });

  it('leaves the front proxy to the flags when asked to', async () => {
    const client = {
      request: async (): Promise<RestResponse> => ({ status: 200, body: { data: data([]) } }),
      watch: async function* (_path: string, signal: AbortSignal): AsyncGenerator<RawWatchEvent> {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        yield* [];
      },
    };
    const trust = new ClusterAuthentication({ client, requestHeader: false });
    await trust.start();
    expect(trust.info).toEqual({ clientCaPem: lf(pki.clientCaPem) });
    await trust.stop();
  });
});
