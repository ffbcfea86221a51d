/**
 * The tracing configuration file is read as kube-apiserver reads its own: the same kind
 * and versions, kube's defaults, strict fields and kube's validation messages.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTracingConfiguration } from './tracing-configuration.js';

describe('readTracingConfiguration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-tracing-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  let count = 0;
  async function read(text: string) {
    const file = join(dir, `config-${++count}.yaml`);
    await writeFile(file, text);
    return readTracingConfiguration(file);
  }
  const header = 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n';

  it("fills in kube's defaults: the collector beside the server, and no sampling of its own", async () => {
    expect(await read(header)).toEqual({ endpoint: 'localhost:4317', samplingRatePerMillion: 0 });
  });

  it('reads JSON, v1alpha1 and gRPC targets', async () => {
    const json = JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1alpha1',
      kind: 'TracingConfiguration',
      endpoint: 'dns:///collector:4317',
      samplingRatePerMillion: 100,
    });
    expect(await read(json)).toEqual({ endpoint: 'dns:///collector:4317', samplingRatePerMillion: 100 });
    expect(await read(`${header}endpoint: unix:///var/run/otel.sock\n`)).toMatchObject({ endpoint: 'unix:///var/run/otel.sock' });
  });

  it.each([
    ['apiVersion: v1\nkind: TracingConfiguration\n', /want kind TracingConfiguration of apiserver.config.k8s.io\/v1alpha1 or apiserver.config.k8s.io\/v1beta1/],
    [`${header}samplingRatePerMillion: -1\n`, /samplingRatePerMillion: Invalid value: -1: sampling rate must be positive/],
    [`${header}samplingRatePerMillion: 0.5\n`, /samplingRatePerMillion: want an integer/],
    [`${header}endpoint: http://collector:4317\n`, /endpoint: Invalid value: "http:\/\/collector:4317": unsupported scheme: http/],
    [`${header}endpoint: a\nendpoint: b\n`, /failed to read tracing config/],
    [`${header}samplingRate: 5\n`, /strict decoding error: unknown field "samplingRate"/],
  ])('refuses %j', async (text, message) => {
    await expect(read(text)).rejects.toThrow(message);
  });
});
