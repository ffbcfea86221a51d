/**
 * Every process the bench starts, so that an interrupted or crashed bench never leaves
 * a server or a load generator behind.
 */
import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
let hooked = false;

/** Remembers `child` until it exits; on the bench's own exit it is killed. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (hooked) return;
  hooked = true;
  process.once('exit', killChildren);
}

/** Kills every process still running (the bench is being interrupted or has crashed). */
export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** Forgets `child` (it was stopped). */
export function untrackChild(child: ChildProcess): void {
  children.delete(child);
}
