/**
 * The webhook configurations of the main API server, kept by an Informer per kind: in
 * force once both kinds are listed, changed by watch events, an unusable one left out
 * and told of at most once per list or event, however many objects that list held.
 */
import { describe, expect, it } from 'vitest';
import type { RestResponse } from '../../machinery/kubeclient/rest-client.js';
import type { RawWatchEvent } from '../../machinery/kubeclient/watch-events.js';
import { eventually } from '../../../test/support/eventually.js';
import { WebhookConfigurationInformer } from './webhook-configuration-informer.js';

const hook = (name: string) => ({ name, clientConfig: { url: `https://hooks.example/${name}` }, sideEffects: 'None', admissionReviewVersions: ['v1'] });
/** A configuration as a list item: no apiVersion and kind. */
const item = (name: string, resourceVersion: string, webhooks: unknown[]) => ({ metadata: { name, resourceVersion }, webhooks });

describe('WebhookConfigurationInformer', () => {
  it('serves both kinds once listed, follows the watch, and leaves out what it cannot use', async () => {
    const watches: string[] = [];
    const validatingEvents: RawWatchEvent[] = [
      {
        type: 'ADDED',
        object: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', ...item('v2', '7', [hook('b')]) },
      },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '8' } } },
      { type: 'DELETED', object: item('v1', '9', []) },
    ];
    const client = {
      request: async (_method: string, path: string): Promise<RestResponse> => {
        const items = path.endsWith('/mutatingwebhookconfigurations')
          ? [item('m2', '4', [{ name: 'no-client-config' }]), item('m1', '3', [hook('a')]), item('m3', '5', [hook('d')])]
          : [item('v1', '5', [hook('c')])];
        return { status: 200, body: { metadata: { resourceVersion: '6' }, items } };
      },
      watch: async function* (path: string, signal: AbortSignal): AsyncGenerator<RawWatchEvent> {
        watches.push(path);
        if (path.includes('/validatingwebhookconfigurations')) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          yield* validatingEvents;
        }
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
    };
    const errors: string[] = [];
    const local = [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', ...item('local', '1', [hook('l')]) }];
    const informer = new WebhookConfigurationInformer({ client, local, onError: (error) => errors.push(error.message), resyncMs: 30_000 });
    const names = () => {
      const { mutating, validating } = informer.current();
      return [...mutating, ...validating].map((webhook) => `${webhook.configuration}/${webhook.name}`);
    };
    expect(names()).toEqual(['local/l']);
    informer.start();
    await informer.synced;
    expect(names()).toEqual(['local/l', 'm1/a', 'm3/d', 'v1/c']);
    // m2 told of at each recomputation (at most one per list: once per object would be three for the first list alone).
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.length).toBeLessThanOrEqual(2);
    await eventually('the watched changes', 5000, async () => names().includes('v2/b') && !names().includes('v1/c'));
    expect(names()).toEqual(['local/l', 'm1/a', 'm3/d', 'v2/b']);
    // Two lists and two watch events (the bookmark changes nothing).
    expect(errors.length).toBeLessThanOrEqual(4);
    expect(new Set(errors.map((message) => message.split(':')[0]))).toEqual(new Set(['MutatingWebhookConfiguration m2']));
    expect(watches.sort()).toEqual([
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?watch=1&allowWatchBookmarks=true&resourceVersion=6&timeoutSeconds=30',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?watch=1&allowWatchBookmarks=true&resourceVersion=6&timeoutSeconds=30',
    ]);
    await informer.stop();
  });
});
