/**
 * The policy and backends a server audits with, as k8s.io/apiserver's `AuditOptions.ApplyTo`
 * builds them: the policy file is loaded and validated at startup (a bad one stops the
 * server), and without one nothing is audited, even with a log path.
 */
import type { Logger } from 'pino';
import { auditNothing, noAudit, unionAuditBackend, type AuditBackend, type AuditPolicyRuleEvaluator } from './audit.js';
import { AuditLogBackend, stdoutAuditLogSink } from './log-backend.js';
import { auditPolicyRuleEvaluator, loadAuditPolicyFile } from './policy.js';
import { RotatingLogFile } from './rotating-log-file.js';

/** Auditing, with kube-apiserver's `--audit-*` flags: nothing is audited without a policy file. */
export interface AuditConfig {
  /** `--audit-policy-file`: an `audit.k8s.io/v1` Policy. */
  readonly policyFile?: string;
  /** `--audit-log-path`: the file events are written to, `-` for stdout; no log when unset. */
  readonly logPath?: string;
  /** `--audit-log-maxsize` in megabytes (100): the file is rotated before it grows past it; 0 never rotates. */
  readonly logMaxSizeMb: number;
  /** `--audit-log-maxbackup` (100): rotated files kept; 0 keeps all. */
  readonly logMaxBackups: number;
  /** `--audit-log-maxage` in days (366): rotated files older are removed; 0 keeps them. */
  readonly logMaxAgeDays: number;
}

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
