// client-go's RetryOnConflict: a 409 is tried again with a fresh read, anything else is the caller's.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../machinery/kubeclient/api-error.js';
import { retryOnConflict } from './retry-on-conflict.js';

const conflict = () => new ApiError({ kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });

describe('retryOnConflict', () => {
  it('writes from the given object, and after a 409 from the object read again', async () => {
    const written: string[] = [];
    const result = await retryOnConflict(
      'cached',
      async () => 'fresh',
      async (object) => {
        written.push(object);
        if (object === 'cached') throw conflict();
        return `wrote ${object}`;
      },
    );
    expect(result).toBe('wrote fresh');
    expect(written).toEqual(['cached', 'fresh']);
  });

  it('gives up after three conflicts and passes other errors through at once', async () => {
    let attempts = 0;
    const always = retryOnConflict(
      'cached',
      async () => 'fresh',
      async () => {
        attempts++;
        throw conflict();
      },
    );
    await expect(always).rejects.toMatchObject({ code: 409 });
    expect(attempts).toBe(3);

    const notFound = new ApiError({ kind: 'Status', code: 404, reason: 'NotFound' });
    let reads = 0;
    const failing = retryOnConflict(
      'cached',
      async () => `read ${++reads}`,
      async () => Promise.reject(notFound),
    );
    await expect(failing).rejects.toBe(notFound);
    expect(reads).toBe(0);
  });
});
