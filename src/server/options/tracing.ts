/**
 * Tracing's flag, kube-apiserver's `--tracing-config-file`, and what it applies to a
 * server: as k8s.io/apiserver's TracingOptions and component-base's `NewProvider`, an
 * OpenTelemetry tracer exporting over OTLP gRPC to the file's endpoint through a batch
 * span processor, sampling ParentBased(TraceIdRatioBased(rate / 1,000,000)), W3C trace
 * context and baggage propagated; the last destroy function flushes what is queued.
 * Without the flag nothing is set up and the hot path starts no span.
 */
import { hostname } from 'node:os';
import { credentials } from '@grpc/grpc-js';
import { context, diag, DiagLogLevel, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import { setTracer } from '../../machinery/tracing.js';
import { versionInfo } from '../../machinery/version-info.js';
import type { Lifecycle } from '../lifecycle.js';
import { readTracingConfiguration, type TracingConfiguration } from '../tracing-configuration.js';
import { fileFlag, type ConcernOptions } from './flags.js';

/** What the tracing flag says. */
export interface TracingOptions {
  /** `--tracing-config-file`; no tracing when undefined. */
  readonly tracingConfigFile?: string;
}

/** What applying the tracing options needs of the server. */
interface TracingContext {
  readonly options: TracingOptions;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
}

/** kube-apiserver's is `apiserver`; a collector tells the two apart by it. */
export const tracingServiceName = 'cairn';
const tracerName = 'cairn.dev/apiserver';

/** The exporter's URL for a kube endpoint: `host:port` and `dns:///host:port` over plain HTTP/2, as kube's exporter is insecure; unix sockets as they are. */
function exporterUrl(endpoint: string): string {
  if (endpoint.startsWith('unix')) return endpoint;
  const target = endpoint.replace(/^dns:\/\/[^/]*\//, '');
  return `http://${target}`;
}

/** The provider `config` describes. */
function tracerProvider(config: TracingConfiguration): TracerProvider {
  const exporter = new OTLPTraceExporter({ url: exporterUrl(config.endpoint), credentials: credentials.createInsecure() });
  return new TracerProvider({
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplingRatePerMillion / 1_000_000) }),
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: tracingServiceName,
      [ATTR_SERVICE_VERSION]: versionInfo().gitVersion,
      [ATTR_SERVICE_INSTANCE_ID]: `${tracingServiceName}-${hostname()}`,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
}

export const tracingOptions = {
  flags: {
    'tracing-config-file': { type: 'string', usage: '[--tracing-config-file FILE]' },
  },

  parse(values) {
    const file = fileFlag(values, 'tracing-config-file');
    return file ? { tracingConfigFile: file } : {};
  },

  /** Reads the file and sets the tracer every layer's spans start with; throws, naming the file, on what it refuses. */
  async applyTo({ options, logger, lifecycle }: TracingContext): Promise<void> {
    if (options.tracingConfigFile === undefined) return;
    const config = await readTracingConfiguration(options.tracingConfigFile);
    const provider = tracerProvider(config);
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
    // The SDK's own troubles (a collector that does not answer, spans dropped) in the server's log, not lost.
    diag.setLogger(
      { error: (message) => logger.warn(`tracing: ${message}`), warn: (message) => logger.warn(`tracing: ${message}`), info() {}, debug() {}, verbose() {} },
      DiagLogLevel.WARN,
    );
    setTracer(provider.getTracer(tracerName));
    logger.info({ endpoint: config.endpoint, samplingRatePerMillion: config.samplingRatePerMillion }, 'tracing: exporting spans over OTLP gRPC');
    // Added first, so it runs last: the spans of the shutdown's own requests and writes are flushed too.
    lifecycle.addDestroyFunc('tracing', async () => {
      setTracer(undefined);
      await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing: the last spans were not exported'));
      context.disable();
      propagation.disable();
      diag.disable();
    });
  },
} satisfies ConcernOptions<TracingOptions> & { applyTo(context: TracingContext): Promise<void> };
