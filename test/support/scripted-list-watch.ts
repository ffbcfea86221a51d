/**
 * A scripted ListWatch for the Reflector's, the Informer's and listAndWatch's unit
 * tests: rounds of a list and the watch that follows it, played in turn.
 */
import type { Bookmark, ListWatch, WatchEvent } from '../../src/machinery/kubeclient/list-watch.js';

/** An object as the scripts list and watch it. */
export interface Item {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion: string };
}

/** An Item in namespace `default`. */
export const item = (name: string, resourceVersion: string): Item => ({ metadata: { name, namespace: 'default', resourceVersion } });

/**
 * One list (or its failure) and the watch after it: its events, then its error or a wait
 * for the abort. After a watch that `ends`, the next round's watch alone is played (the
 * reflector watches again without listing).
 */
export interface Round {
  readonly items?: Item[];
  readonly resourceVersion?: string;
  readonly listError?: Error;
  readonly events?: (WatchEvent<Item> | Bookmark)[];
  readonly error?: Error;
  /** The watch ends after its events, as the server ends one at its `timeoutSeconds`. */
  readonly ends?: boolean;
}

/** Serves the rounds in turn (the last one again once they run out); `calls` records `list` and `watch RV`. */
export function scripted(rounds: readonly Round[]): { readonly source: ListWatch<Item>; readonly calls: string[] } {
  const calls: string[] = [];
  let round = -1;
  /** Whether the last call was a list, whose round the watch then plays. */
  let listed = false;
  const next = () => (round = Math.min(round + 1, rounds.length - 1));
  const source: ListWatch<Item> = {
    async list() {
      next();
      listed = true;
      calls.push('list');
      const { items = [], resourceVersion = '', listError } = rounds[round];
      if (listError) throw listError;
      return { items, resourceVersion };
    },
    async *watch(resourceVersion, signal) {
      if (!listed) next();
      listed = false;
      calls.push(`watch ${resourceVersion}`);
      const { events = [], error, ends } = rounds[round];
      yield* events;
      if (error) throw error;
      if (ends) return;
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    },
  };
  return { source, calls };
}
