/**
 * A history read's options: its page is always bounded, its continue token round-trips
 * and is refused, worded as a list's, when it is not one of ours.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import { decodeHistoryContinue, encodeHistoryContinue, historyOptions, maxHistoryPage } from './history-options.js';

const options = (query: string) => historyOptions(new URLSearchParams(query));

/** What `f` throws (undefined when it returns). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('history options', () => {
  it('bounds every page: no limit, 0, a negative one or one past the bound read at most the bound', () => {
    for (const query of ['', 'limit=0', 'limit=-3', `limit=${maxHistoryPage + 1}`, 'limit=99999999999999999999'])
      expect(options(query).limit, query).toBe(maxHistoryPage);
    expect(options('limit=7').limit).toBe(7);
  });

  it('refuses a limit that is no integer with Go’s strconv error, as kube’s parameter decoding', () => {
    expect(() => options('limit=ten')).toThrow('strconv.ParseInt: parsing "ten": invalid syntax');
  });

  it('reads uid and continue, leaving out what is not sent', () => {
    expect(options('uid=u-1')).toEqual({ limit: maxHistoryPage, uid: 'u-1' });
    expect(options(`continue=${encodeHistoryContinue('42')}&limit=2`)).toEqual({ limit: 2, before: '42' });
  });

  it('round-trips a continue token, and refuses another with 400', () => {
    expect(decodeHistoryContinue(encodeHistoryContinue('12345'))).toBe('12345');
    const token = (json: string) => Buffer.from(json).toString('base64url');
    for (const bad of [
      'not a token!',
      token('nope'),
      token('{"v":"meta.k8s.io/v2","before":"1"}'),
      token('{"v":"meta.k8s.io/v1","before":"0"}'),
      token('{"v":"meta.k8s.io/v1"}'),
    ]) {
      const error = thrown(() => decodeHistoryContinue(bad));
      expect(error, bad).toBeInstanceOf(StatusError);
      expect((error as StatusError).status, bad).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: expect.stringMatching(/^invalid continue token: continue key is not valid: /),
      });
    }
  });
});
