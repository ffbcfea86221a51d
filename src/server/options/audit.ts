/**
 * Audit's flags, kube-apiserver's `--audit-*`, and what they apply to a server: the
 * policy and backends the handler chain audits with, and, last at shutdown, the log's
 * final events (after the last response, so the log ends with its ResponseComplete).
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { AuditBackend } from '../../audit/audit.js';
import { startAuditing, type AuditConfig, type Auditing } from '../../audit/auditing.js';
import type { Lifecycle } from '../lifecycle.js';
import { count, fileFlag, FlagError, stringFlag, type ConcernOptions } from './flags.js';

/** What the audit flags say. */
export interface AuditOptions {
  readonly audit: AuditConfig;
}

/** What applying the audit options needs of the server. */
interface AuditContext {
  readonly options: AuditOptions;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  /** Where events go besides the log (tests). */
  readonly backend?: AuditBackend;
}

export const auditOptions = {
  flags: {
    'audit-policy-file': { type: 'string', usage: '[--audit-policy-file FILE]' },
    'audit-log-path': { type: 'string', usage: '[--audit-log-path FILE|-]' },
    'audit-log-maxsize': { type: 'string', usage: '[--audit-log-maxsize MB]' },
    'audit-log-maxbackup': { type: 'string', usage: '[--audit-log-maxbackup N]' },
    'audit-log-maxage': { type: 'string', usage: '[--audit-log-maxage DAYS]' },
    'audit-log-format': { type: 'string', usage: '[--audit-log-format json]' },
  },

  parse(values) {
    const format = stringFlag(values, 'audit-log-format') ?? 'json';
    if (format === 'legacy') throw new FlagError('--audit-log-format legacy is not supported: Cairn writes the json format only');
    if (format !== 'json') throw new FlagError(`invalid audit log format ${format}, allowed formats are "legacy,json"`);
    const policyFile = fileFlag(values, 'audit-policy-file');
    const logPath = stringFlag(values, 'audit-log-path');
    const number = (flag: string, fallback: number) => count(flag, stringFlag(values, flag), fallback);
    return {
      audit: Object.freeze({
        ...(policyFile ? { policyFile } : {}),
        ...(logPath ? { logPath: logPath === '-' ? '-' : resolve(logPath) } : {}),
        logMaxSizeMb: number('audit-log-maxsize', 100),
        logMaxBackups: number('audit-log-maxbackup', 100),
        logMaxAgeDays: number('audit-log-maxage', 366),
      }),
    };
  },

  async applyTo({ options, logger, lifecycle, backend }: AuditContext): Promise<Auditing> {
    const auditing = await startAuditing(options.audit, backend, logger);
    lifecycle.addDestroyFunc('audit-log', () => auditing.shutdown());
    return auditing;
  },
} satisfies ConcernOptions<AuditOptions> & { applyTo(context: AuditContext): Promise<Auditing> };
