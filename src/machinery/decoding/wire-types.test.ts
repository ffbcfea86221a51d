/**
 * Checking option bodies and query parameters against their kube types.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { checkWireType, type WireType } from './wire-types.js';

const options: WireType = {
  struct: 'v1.DeleteOptions',
  fields: {
    gracePeriodSeconds: 'int64',
    dryRun: { list: 'string' },
    preconditions: { struct: 'v1.Preconditions', fields: { uid: 'string' } },
    replicas: 'int32',
    orphan: 'bool',
  },
};

describe('checkWireType', () => {
  it.each([
    [{ gracePeriodSeconds: 'x' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    [{ gracePeriodSeconds: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    [{ dryRun: 'All' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    [{ dryRun: ['All', 1] }, 'json: cannot unmarshal number 1 into Go struct field DeleteOptions.dryRun of type string'],
    [{ preconditions: { uid: false } }, 'json: cannot unmarshal bool into Go struct field Preconditions.preconditions.uid of type string'],
    [{ replicas: 2 ** 31 }, 'json: cannot unmarshal number 2147483648 into Go struct field DeleteOptions.replicas of type int32'],
    [{ orphan: 'true' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.orphan of type bool'],
    [[], 'json: cannot unmarshal array into Go value of type DeleteOptions of type v1.DeleteOptions'],
  ])('refuses %j with 400', (value, message) => {
    expect(() => checkWireType(value, options, 'DeleteOptions')).toThrow(StatusError);
    expect(() => checkWireType(value, options, 'DeleteOptions')).toThrow(message);
  });

  it('takes null as the zero value, the right types, and fields it does not know', () => {
    for (const value of [
      {},
      { gracePeriodSeconds: null, dryRun: ['All', null], preconditions: null },
      { gracePeriodSeconds: -3, replicas: 2 ** 31 - 1, orphan: false, unknown: 'x' },
    ]) {
      expect(() => checkWireType(value, options, 'DeleteOptions')).not.toThrow();
    }
  });
});
