/**
 * Continue tokens: a position round-trips, and kube-apiserver's tokens are read.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { decodeContinue, encodeContinue } from './continue-token.js';

const token = (json: string) => Buffer.from(json, 'utf8').toString('base64url');

describe('continue tokens', () => {
  it('round-trip a position, with the remaining count when a page gave one', () => {
    for (const position of [
      { resourceVersion: '42', namespace: 'ns', name: 'a/b' },
      { resourceVersion: '42', namespace: '', name: 'x', remainingItemCount: 1234 },
      { namespace: 'ns', name: 'y' },
    ]) {
      expect(decodeContinue(encodeContinue(position))).toEqual(position);
    }
  });

  it('read kube-apiserver’s tokens, which carry no count', () => {
    expect(decodeContinue(token('{"v":"meta.k8s.io/v1","rv":7,"start":"ns/p1\\u0000"}'))).toEqual({ resourceVersion: '7', namespace: 'ns', name: 'p1' });
  });

  it.each(['-1', '1.5', '"3"', 'null'])('refuse a remaining count of %s', (remaining) => {
    const decode = () => decodeContinue(token(`{"v":"meta.k8s.io/v1","rv":7,"start":"ns/p1\\u0000","remaining":${remaining}}`));
    expect(decode).toThrow(StatusError);
    expect(decode).toThrow('continue key is not valid: encoded remaining item count is not valid');
  });
});
