/**
 * Reading an audit log (`--audit-log-path`) back: its JSON lines, and the events of one
 * request once they are written (the log is written behind the requests).
 */
import { readFile } from 'node:fs/promises';
import { eventually } from './eventually.js';

/** An `audit.k8s.io/v1` Event as read from the log. */
export type LoggedAuditEvent = Record<string, any>;

/**
 * Every event in the log at `path`, in order; none when it does not exist yet. A line the
 * server is still writing (a large event is written in several chunks) is not one yet.
 */
export async function readAuditLog(path: string): Promise<LoggedAuditEvent[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedAuditEvent);
}

/** The events of the request `auditID`, once there are `count` of them. */
export async function eventsOf(path: string, auditID: string, count: number): Promise<LoggedAuditEvent[]> {
  let events: LoggedAuditEvent[] = [];
  await eventually(`${count} audit events of ${auditID} in ${path}`, 10_000, async () => {
    events = (await readAuditLog(path)).filter((e) => e.auditID === auditID);
    return events.length >= count;
  });
  return events;
}
