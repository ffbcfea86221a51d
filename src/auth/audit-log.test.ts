import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from './audit.js';
import { AuditLogBackend, auditEventV1, type AuditLogSink } from './audit-log.js';
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
