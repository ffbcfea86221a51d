/**
 * Auditing from the `--audit-*` flags, as k8s.io/apiserver's `AuditOptions.ApplyTo`:
 * the policy file is loaded and validated at startup (a bad one stops the server),
 * and without one nothing is audited, even with a log path.
 */
import type { Logger } from 'pino';
import { auditNothing, noAudit, unionAuditBackend, type AuditBackend, type AuditPolicyRuleEvaluator } from '../auth/audit.js';
import { AuditLogBackend, stdoutAuditLogSink } from '../auth/audit-log.js';
import { auditPolicyRuleEvaluator, loadAuditPolicyFile } from '../auth/audit-policy.js';
import { RotatingLogFile } from '../auth/rotating-log-file.js';
import type { AuditConfig } from './config.js';

/** The policy and backend the handler chain audits with. */
export interface Auditing {
  readonly policy: AuditPolicyRuleEvaluator;
  readonly backend: AuditBackend;
  /** Writes the events not yet on disk and closes the log. */
  shutdown(): Promise<void>;
}

const megabyte = 1024 * 1024;

/** Loads the policy and opens the log; `seam` (tests) receives the events too. */
export async function startAuditing(config: AuditConfig, seam: AuditBackend | undefined, logger: Logger): Promise<Auditing> {
  if (config.policyFile === undefined) {
    if (config.logPath !== undefined) logger.info('no audit policy file provided, no events will be recorded for the log backend');
    return { policy: auditNothing, backend: noAudit, shutdown: () => Promise.resolve() };
  }
  const { policy, warnings } = await loadAuditPolicyFile(config.policyFile);
  if (warnings.length) logger.warn({ file: config.policyFile, warnings }, 'the audit policy has unknown fields; they are ignored');
  const log =
    config.logPath === undefined
      ? undefined
      : new AuditLogBackend(
          config.logPath === '-'
            ? stdoutAuditLogSink
            : await RotatingLogFile.open(config.logPath, {
                maxBytes: config.logMaxSizeMb * megabyte,
                maxBackups: config.logMaxBackups,
                maxAgeDays: config.logMaxAgeDays,
              }),
          (error) => logger.error({ err: error }, 'writing the audit log'),
        );
  const backends = [...(log ? [log] : []), ...(seam ? [seam] : [])];
  return {
    policy: auditPolicyRuleEvaluator(policy),
    backend: backends.length ? unionAuditBackend(backends) : noAudit,
    shutdown: async () => log?.shutdown(),
  };
}
