/**
 * The lifecycle's order: post-start hooks in order, none once shutdown has begun; at
 * shutdown what they started stops newest first before the delay, then the pre-shutdown
 * hooks in order, then the destroy functions newest first; the readiness checks follow
 * the hooks and shutdown.
 */
import { describe, expect, it } from 'vitest';
import { Lifecycle } from './lifecycle.js';

describe('Lifecycle', () => {
  it('starts in order and shuts down in kube’s order', async () => {
    const lifecycle = new Lifecycle();
    const steps: string[] = [];
    for (const name of ['storage-ready', 'start-compaction', 'start-controller'])
      lifecycle.addPostStartHook(name, async () => {
        steps.push(`start ${name}`);
        return name === 'storage-ready' ? undefined : () => void steps.push(`stop ${name} ${lifecycle.draining.aborted} ${lifecycle.shuttingDown.aborted}`);
      });
    lifecycle.addDestroyFunc('database', () => void steps.push('destroy database'));
    lifecycle.addPreShutdownHook('storage', () => void steps.push(`pre-shutdown storage ${lifecycle.shuttingDown.aborted}`));
    lifecycle.addDestroyFunc('audit-log', () => void steps.push('destroy audit-log'));
    lifecycle.addPreShutdownHook('listener', () => void steps.push('pre-shutdown listener'));
    await lifecycle.runPostStartHooks();
    await lifecycle.shutdown(0);
    expect(steps).toEqual([
      'start storage-ready',
      'start start-compaction',
      'start start-controller',
      'stop start-controller true false',
      'stop start-compaction true false',
      'pre-shutdown storage true',
      'pre-shutdown listener',
      'destroy audit-log',
      'destroy database',
    ]);
  });

  it('starts no hook once shutdown has begun, and stops at once what a running hook started', async () => {
    const lifecycle = new Lifecycle();
    const steps: string[] = [];
    let release = (): void => {};
    lifecycle.addPostStartHook('storage-ready', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return () => void steps.push('stop storage-ready');
    });
    lifecycle.addPostStartHook('start-controller', async () => void steps.push('start start-controller'));
    const started = lifecycle.runPostStartHooks();
    await lifecycle.shutdown(0);
    release();
    await started;
    expect(steps).toEqual(['stop storage-ready']);
  });

  it('refuses a name used twice', () => {
    const lifecycle = new Lifecycle();
    lifecycle.addPostStartHook('storage-ready', async () => undefined);
    expect(() => lifecycle.addPostStartHook('storage-ready', async () => undefined)).toThrow(/already registered/);
  });

  it('is not ready until each post-start hook has run, nor once shutdown has begun', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.addReadyzChecks({ name: 'database', check: () => undefined });
    let release = (): void => {};
    lifecycle.addPostStartHook('storage-ready', async () => undefined);
    lifecycle.addPostStartHook('start-controller', () => new Promise<void>((resolve) => (release = resolve)));
    const failing = async () => {
      const results = await Promise.all(lifecycle.readyzChecks().map(async ({ name, check }) => [name, await check()]));
      return results.filter(([, reason]) => reason !== undefined);
    };
    expect(lifecycle.readyzChecks().map(({ name }) => name)).toEqual(['database', 'poststarthook/storage-ready', 'poststarthook/start-controller', 'shutdown']);
    expect(await failing()).toEqual([
      ['poststarthook/storage-ready', 'not finished'],
      ['poststarthook/start-controller', 'not finished'],
    ]);
    const running = lifecycle.runPostStartHooks();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await failing()).toEqual([['poststarthook/start-controller', 'not finished']]);
    release();
    await running;
    expect(await failing()).toEqual([]);
    await lifecycle.shutdown(0);
    expect(await failing()).toEqual([['shutdown', 'process is shutting down']]);
  });

  it('refuses a readiness check named twice', () => {
    const lifecycle = new Lifecycle();
    lifecycle.addReadyzChecks({ name: 'database', check: () => undefined });
    expect(() => lifecycle.addReadyzChecks({ name: 'database', check: () => undefined })).toThrow(/already registered/);
  });
});
