/**
 * audit.k8s.io/v1 Events as kube-apiserver writes them, and the backend that writes them
 * behind the requests: in order, dropping events rather than buffering past its limit, going
 * on after a failed write.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from './audit.js';
import { eventually } from '../../test/support/eventually.js';
import { AuditEventDroppedError, AuditLogBackend, auditEventV1, type AuditLogSink } from './log-backend.js';
import { RotatingLogFile } from './rotating-log-file.js';

const event = (n: number): AuditEvent => ({
  level: 'Metadata',
  auditID: `id-${n}`,
  stage: 'ResponseComplete',
  requestURI: '/apis/cairn.dev/v1/pipelines',
  verb: 'list',
  user: { name: 'jane', uid: 'u1', groups: ['devs'], extra: { scopes: ['a'] } },
  sourceIPs: ['127.0.0.1'],
  objectRef: { resource: 'pipelines', apiGroup: 'cairn.dev', apiVersion: 'v1' },
  responseStatus: { code: 200 },
  requestReceivedTimestamp: '2026-11-24T12:00:00.000001Z',
  stageTimestamp: '2026-11-24T12:00:00.000002Z',
  annotations: { 'authorization.k8s.io/decision': 'allow' },
});

describe('auditEventV1', () => {
  it('is an audit.k8s.io/v1 Event: kind and apiVersion first, the user as authentication.k8s.io UserInfo, Status metadata', () => {
    const v1 = auditEventV1(event(1));
    expect(Object.keys(v1).slice(0, 5)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage']);
    const failed = auditEventV1({ ...event(1), responseStatus: { code: 404, reason: 'NotFound', message: 'gone', status: 'Failure', details: { name: 'x' } } });
    expect(JSON.stringify(failed.responseStatus)).toBe(
      '{"metadata":{},"status":"Failure","message":"gone","reason":"NotFound","details":{"name":"x"},"code":404}',
    );
    expect(v1).toEqual({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'id-1',
      stage: 'ResponseComplete',
      requestURI: '/apis/cairn.dev/v1/pipelines',
      verb: 'list',
      user: { username: 'jane', uid: 'u1', groups: ['devs'], extra: { scopes: ['a'] } },
      sourceIPs: ['127.0.0.1'],
      objectRef: { resource: 'pipelines', apiGroup: 'cairn.dev', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: '2026-11-24T12:00:00.000001Z',
      stageTimestamp: '2026-11-24T12:00:00.000002Z',
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
  });
});

describe('AuditLogBackend', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-audit-log-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every event processed before shutdown, in order, one JSON line each', async () => {
    const path = join(dir, 'audit.log');
    const backend = new AuditLogBackend(await RotatingLogFile.open(path, { maxBytes: 0, maxBackups: 0, maxAgeDays: 0 }), (error) => {
      throw error;
    });
    for (let n = 0; n < 2000; n++) backend.processEvents(event(n));
    await backend.shutdown();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as { auditID: string }).auditID)).toEqual(Array.from({ length: 2000 }, (_, n) => `id-${n}`));
  });

  it('drops events rather than buffer more than its limit while the sink is behind, and takes them again once it caught up', async () => {
    const written: string[] = [];
    const errors: unknown[] = [];
    // Each write waits until the test lets it finish.
    const pending: (() => void)[] = [];
    const sink: AuditLogSink = {
      write: async (lines) => {
        await new Promise<void>((resolve) => pending.push(resolve));
        written.push(...lines);
      },
      close: () => Promise.resolve(),
    };
    const lineLength = `${JSON.stringify(auditEventV1(event(0)))}\n`.length;
    const backend = new AuditLogBackend(sink, (error) => errors.push(error), 3 * lineLength);
    for (let n = 0; n < 5; n++) backend.processEvents(event(n));
    expect(errors.map((e) => (e as Error).message)).toEqual([
      `audit event id-3 (ResponseComplete) dropped: the log is ${3 * lineLength} bytes behind`,
      `audit event id-4 (ResponseComplete) dropped: the log is ${3 * lineLength} bytes behind`,
    ]);
    expect(errors.every((e) => e instanceof AuditEventDroppedError)).toBe(true);
    await eventually('the first write', 1000, () => Promise.resolve(pending.length === 1));
    pending[0]();
    await eventually('the first batch written', 1000, () => Promise.resolve(written.length === 3));
    backend.processEvents(event(5));
    await eventually('the second write', 1000, () => Promise.resolve(pending.length === 2));
    pending[1]();
    await backend.shutdown();
    expect(written.map((line) => (JSON.parse(line) as { auditID: string }).auditID)).toEqual(['id-0', 'id-1', 'id-2', 'id-5']);
  });

  it('reports a failed write and goes on with the next events', async () => {
    const written: string[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const sink: AuditLogSink = {
      write: (lines) => {
        if (fail) {
          fail = false;
          return Promise.reject(new Error('disk full'));
        }
        written.push(...lines);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    const backend = new AuditLogBackend(sink, (error) => errors.push(error));
    backend.processEvents(event(1));
    await backend.shutdown();
    backend.processEvents(event(2));
    await backend.shutdown();
    expect(errors).toEqual([new Error('disk full')]);
    expect(written.map((line) => (JSON.parse(line) as { auditID: string }).auditID)).toEqual(['id-2']);
  });
});
