/** What a client-node informer told its handlers, for tests that drive one against Cairn. */
import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import { eventually } from './eventually.js';

/** The events seen so far (`add NAME`, `update NAME`, `delete NAME`), the errors, and a wait for one event. */
export interface InformerEvents {
  readonly seen: string[];
  readonly errors: unknown[];
  /** Resolves once `event` was seen, or an error was reported (the test then sees it in `errors`). */
  readonly until: (event: string) => Promise<void>;
}

/** Records every add, update, delete and error `informer` reports. */
export function recordInformerEvents<T extends KubernetesObject>(informer: Informer<T>): InformerEvents {
  const seen: string[] = [];
  const errors: unknown[] = [];
  const nameOf = (object: T): string => object.metadata?.name ?? '';
  informer.on('add', (o) => seen.push(`add ${nameOf(o)}`));
  informer.on('update', (o) => seen.push(`update ${nameOf(o)}`));
  informer.on('delete', (o) => seen.push(`delete ${nameOf(o)}`));
  informer.on('error', (err) => errors.push(err));
  return {
    seen,
    errors,
    until: (event) => eventually(`informer event ${event}; seen: ${JSON.stringify(seen)}`, 10_000, async () => seen.includes(event) || errors.length > 0),
  };
}
