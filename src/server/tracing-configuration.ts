/**
 * The file `--tracing-config-file` names, in kube-apiserver's format (a
 * `TracingConfiguration` of `apiserver.config.k8s.io`), so one file serves both servers:
 * read strictly as kube's decoder reads it (unknown or duplicate fields refused) and
 * validated as `component-base/tracing/api/v1` validates it.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';

/** What the file says, with kube's defaults filled in. */
export interface TracingConfiguration {
  /** The OTLP gRPC collector, `host:port` (or a gRPC target such as `unix:///path`). */
  readonly endpoint: string;
  /** Spans sampled per million that have no sampled parent. */
  readonly samplingRatePerMillion: number;
}

/** kube's default collector: an OpenTelemetry collector beside the server. */
export const defaultTracingEndpoint = 'localhost:4317';
const apiVersions = ['apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1'];
const kind = 'TracingConfiguration';
const fields = new Set(['apiVersion', 'kind', 'endpoint', 'samplingRatePerMillion']);
const maxSamplingRatePerMillion = 1_000_000;
/** gRPC's name-resolution schemes kube allows (https://github.com/grpc/grpc/blob/master/doc/naming.md). */
const schemes = new Set(['dns', 'unix', 'unix-abstract']);

/** Reads and validates the file at `path`; throws with kube's words for what is wrong. */
export async function readTracingConfiguration(path: string): Promise<TracingConfiguration> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`failed to read tracing config: unable to read tracing configuration from "${path}": ${(error as Error).message}`, { cause: error });
  }
  const config = decode(text, path);
  const errors = validate(config);
  if (errors.length > 0) throw new Error(`failed to validate tracing configuration: ${errors.length > 1 ? `[${errors.join(', ')}]` : errors[0]}`);
  return Object.freeze({ endpoint: config.endpoint ?? defaultTracingEndpoint, samplingRatePerMillion: config.samplingRatePerMillion ?? 0 });
}

interface Decoded {
  readonly endpoint?: string;
  readonly samplingRatePerMillion?: number;
}

/** JSON or YAML, one object of the known kind and version with only its fields. */
function decode(text: string, path: string): Decoded {
  const fail = (why: string): never => {
    throw new Error(`failed to read tracing config: unable to decode tracing configuration data from "${path}": ${why}`);
  };
  // uniqueKeys: a duplicate field is an error, as kube's strict decoder says.
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) fail(document.errors[0].message);
  const value: unknown = document.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not an object');
  const object = value as Record<string, unknown>;
  if (object.kind !== kind || typeof object.apiVersion !== 'string' || !apiVersions.includes(object.apiVersion))
    fail(`want kind ${kind} of ${apiVersions.join(' or ')}, got kind "${String(object.kind)}" of "${String(object.apiVersion)}"`);
  const unknown = Object.keys(object).filter((field) => !fields.has(field));
  if (unknown.length > 0) fail(`strict decoding error: ${unknown.map((field) => `unknown field "${field}"`).join(', ')}`);
  const { endpoint, samplingRatePerMillion } = object;
  if (endpoint !== undefined && endpoint !== null && typeof endpoint !== 'string') fail('endpoint: want a string');
  if (samplingRatePerMillion !== undefined && samplingRatePerMillion !== null && !Number.isInteger(samplingRatePerMillion))
    fail('samplingRatePerMillion: want an integer');
  return {
    ...(typeof endpoint === 'string' ? { endpoint } : {}),
    ...(typeof samplingRatePerMillion === 'number' ? { samplingRatePerMillion } : {}),
  };
}

/** kube's `ValidateTracingConfiguration`: the rate within 0…1,000,000, the endpoint a gRPC target. */
function validate(config: Decoded): string[] {
  const errors: string[] = [];
  const rate = config.samplingRatePerMillion;
  if (rate !== undefined && rate < 0) errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be positive`);
  if (rate !== undefined && rate > maxSamplingRatePerMillion)
    errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate per million must be less than or equal to one million`);
  if (config.endpoint !== undefined) {
    const target = config.endpoint.includes('//') ? config.endpoint : `dns://${config.endpoint}`;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(target)?.[1];
    let parsed = scheme !== undefined;
    if (parsed && scheme === 'dns') parsed = URL.canParse(target.replace(/^dns:/, 'http:'));
    if (!parsed) errors.push(`endpoint: Invalid value: "${target}": not a gRPC target`);
    else if (!schemes.has(scheme!))
      errors.push(
        `endpoint: Invalid value: "${target}": unsupported scheme: ${scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`,
      );
  }
  return errors;
}
