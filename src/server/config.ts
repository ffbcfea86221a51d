/**
 * The command line: `cairn [start|migrate]`, `--log-level`, `--help`, and every concern's
 * flags and environment variables (flags win), each read by its options module under
 * `options/`. A new flag belongs to one of those modules; this file only puts them together.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { admissionOptions, type AdmissionOptions } from './options/admission.js';
import { auditOptions, type AuditOptions } from './options/audit.js';
import { authenticationOptions, type AuthenticationOptions } from './options/authentication.js';
import { authorizationOptions, type AuthorizationOptions } from './options/authorization.js';
import { controllerOptions, type ControllerOptions } from './options/controllers.js';
import { FlagError, stringFlag, type ConcernOptions, type Flag, type FlagValues } from './options/flags.js';
import { servingOptions, type ServingOptions } from './options/serving.js';
import { storageOptions, type StorageOptions } from './options/storage.js';
import { tracingOptions, type TracingOptions } from './options/tracing.js';
import { workersOptions, type WorkersOptions } from './options/workers.js';

/** Everything the server process is configured with. */
export type ServerConfig = {
  readonly command: 'start' | 'migrate';
  readonly logLevel: string;
} & ServingOptions &
  StorageOptions &
  ControllerOptions &
  AdmissionOptions &
  AuthenticationOptions &
  AuthorizationOptions &
  AuditOptions &
  TracingOptions &
  WorkersOptions;

/** The concerns, in the order the usage lists their flags. */
const concerns: readonly ConcernOptions<object>[] = [
  servingOptions,
  workersOptions,
  storageOptions,
  controllerOptions,
  admissionOptions,
  authenticationOptions,
  authorizationOptions,
  auditOptions,
  tracingOptions,
];

/** The command's own flags, beside the concerns'. */
const commandFlags = {
  'log-level': { type: 'string', usage: '[--log-level LEVEL]' },
  help: { type: 'boolean', usage: '' },
} as const;

/** Words in lines of at most 110 characters, the first line opening with `head`, the others indented. */
function wrap(head: string, words: readonly string[]): string {
  const lines = [head];
  for (const word of words) {
    if (lines[lines.length - 1].length + 1 + word.length > 110) lines.push(`  ${word}`);
    else lines[lines.length - 1] += ` ${word}`;
  }
  return lines.join('\n');
}

const allFlags: readonly Readonly<Record<string, Flag>>[] = [...concerns.map((concern) => concern.flags), commandFlags];
const environment = [...concerns.flatMap((concern) => concern.environment ?? []), 'LOG_LEVEL'];

const usage = [
  wrap(
    'usage: cairn [start|migrate]',
    allFlags.flatMap((flags) => Object.values(flags).flatMap((flag) => (flag.usage ? [flag.usage] : []))),
  ),
  wrap(
    'environment:',
    environment.map((name, i) => `${name}${i < environment.length - 1 ? ',' : ';'}`),
  ),
  ...concerns.flatMap((concern) => (concern.environmentNote ? [wrap(' ', concern.environmentNote.split(' '))] : [])),
].join('\n');

const parseOptions: ParseArgsConfig['options'] = Object.fromEntries(
  allFlags.flatMap((flags) => Object.entries(flags).map(([name, flag]) => [name, { type: flag.type, ...(flag.multiple ? { multiple: true } : {}) }])),
);

/** Objects merged one level deep: two concerns may each fill part of one group (`delegation`). */
function merged(parts: readonly object[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const part of parts)
    for (const [key, value] of Object.entries(part)) {
      const before = result[key];
      const nested = typeof before === 'object' && before !== null && !Array.isArray(before) && typeof value === 'object' && value !== null;
      result[key] = nested ? Object.freeze({ ...before, ...value }) : value;
    }
  return result;
}

/** Parses argv and the environment; throws with the usage on bad input. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const parsed = parseArgs({ args: [...argv], allowPositionals: true, options: parseOptions });
  const values: FlagValues = parsed.values;
  if (values.help) throw new Error(usage);
  const command = parsed.positionals[0] ?? 'start';
  if (command !== 'start' && command !== 'migrate') throw new Error(`unknown command "${command}"\n${usage}`);
  let parts: object[];
  try {
    parts = concerns.map((concern) => concern.parse(values, env));
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    throw new Error(`${error.message}\n${usage}`, { cause: error });
  }
  return Object.freeze({
    command,
    ...merged(parts),
    logLevel: stringFlag(values, 'log-level') ?? env.LOG_LEVEL ?? 'info',
  }) as ServerConfig;
}
