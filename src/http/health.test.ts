/**
 * The health endpoints' answers, case by case against what k8s.io/apiserver's healthz
 * package writes for the same checks and query.
 */
import { describe, expect, it } from 'vitest';
import { rootHealth, singleHealth, type HealthCheck } from './health.js';

const ping: HealthCheck = { name: 'ping', check: () => undefined };
const database: HealthCheck = { name: 'database', check: () => Promise.resolve('the database did not answer a ping') };
const hook: HealthCheck = { name: 'poststarthook/storage-ready', check: () => undefined };
const throwing: HealthCheck = {
  name: 'informer-sync',
  check: () => {
    throw new Error('not listed');
  },
};

describe('rootHealth', () => {
  it.each<[string, HealthCheck[], string, number, string]>([
    ['healthy: ok alone', [ping, hook], '', 200, 'ok'],
    ['healthy, verbose: a line per check', [ping, hook], 'verbose', 200, '[+]ping ok\n[+]poststarthook/storage-ready ok\nreadyz check passed\n'],
    ['verbose with a value', [ping], 'verbose=1', 200, '[+]ping ok\nreadyz check passed\n'],
    [
      'a failure is verbose without asking, its reason withheld',
      [ping, database],
      '',
      500,
      '[+]ping ok\n[-]database failed: reason withheld\nreadyz check failed\n',
    ],
    ['a check that throws fails', [throwing, ping], '', 500, '[-]informer-sync failed: reason withheld\n[+]ping ok\nreadyz check failed\n'],
    ['an excluded failure passes', [ping, database], 'exclude=database', 200, 'ok'],
    ['excluded, verbose', [ping, database], 'exclude=database&verbose', 200, '[+]ping ok\n[+]database excluded: ok\nreadyz check passed\n'],
    ['exclude repeats', [ping, database, throwing], 'exclude=database&exclude=informer-sync', 200, 'ok'],
    [
      'an exclusion that matches nothing is warned about, sorted',
      [ping],
      'exclude=zz&exclude=etcd&verbose',
      200,
      '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "etcd","zz"\nreadyz check passed\n',
    ],
    [
      'the warning on failure too',
      [database],
      'exclude=etcd',
      500,
      '[-]database failed: reason withheld\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check failed\n',
    ],
    [
      'a check excluded twice is not warned about',
      [ping, database],
      'exclude=database&exclude=database&verbose',
      200,
      '[+]ping ok\n[+]database excluded: ok\nreadyz check passed\n',
    ],
    ['no checks', [], 'verbose', 200, 'readyz check passed\n'],
  ])('%s', async (_, checks, query, status, body) => {
    expect(await rootHealth('readyz', checks, new URLSearchParams(query))).toEqual({ status, body });
  });

  it('names the endpoint', async () => {
    expect((await rootHealth('livez', [ping], new URLSearchParams('verbose'))).body).toBe('[+]ping ok\nlivez check passed\n');
  });
});

describe('singleHealth', () => {
  it.each<[string, HealthCheck, number, string]>([
    ['healthy', ping, 200, 'ok'],
    ['failing: the reason is told', database, 500, 'internal server error: the database did not answer a ping\n'],
    ['throwing: the message is the reason', throwing, 500, 'internal server error: not listed\n'],
  ])('%s', async (_, check, status, body) => {
    expect(await singleHealth('readyz', check)).toEqual({ status, body });
  });
});

describe('the observer', () => {
  it('is told every check that ran, by endpoint, and not the excluded ones', async () => {
    const seen: string[] = [];
    const observe = (endpoint: string, name: string, healthy: boolean) => seen.push(`${endpoint} ${name} ${healthy}`);
    await rootHealth('readyz', [ping, database, throwing], new URLSearchParams('exclude=ping'), observe);
    await singleHealth('livez', ping, observe);
    expect(seen.sort()).toEqual(['livez ping true', 'readyz database false', 'readyz informer-sync false']);
  });
});
