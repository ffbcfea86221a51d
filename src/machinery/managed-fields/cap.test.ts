/**
 * Capping update managers in managedFields as kube does, folding the oldest into one entry.
 */
import { describe, expect, it } from 'vitest';
import { capUpdateOwners } from './cap.js';
import { fieldPath } from './field-path.js';
import { FieldSet } from './field-set.js';
import type { FieldOwner } from './managed-fields.js';

const updater = (manager: string, minute: number, field: string, apiVersion = 'cairn.dev/v1'): FieldOwner => ({
  manager,
  operation: 'Update',
  apiVersion,
  time: `2024-05-01T10:${String(minute).padStart(2, '0')}:00Z`,
  fields: FieldSet.of([fieldPath('metadata', 'labels', field)]),
});

const summary = (owners: readonly FieldOwner[]) =>
  owners
    .map(({ manager, operation, apiVersion, time, fields }) => ({ manager, operation, apiVersion, time, fields: fields.toFieldsV1() }))
    .sort((p, q) => (p.manager < q.manager ? -1 : 1));

describe('capUpdateOwners', () => {
  it('leaves ten Update owners, and any number of appliers, alone', () => {
    const owners = [...Array.from({ length: 10 }, (_, i) => updater(`m${i}`, i, `l${i}`)), { ...updater('applier', 0, 'a'), operation: 'Apply' as const }];
    expect(capUpdateOwners(owners)).toEqual(owners);
  });

  it('folds the two oldest of eleven into ancient-changes, with the time of the newer', () => {
    const owners = Array.from({ length: 11 }, (_, i) => updater(`m${String(i).padStart(2, '0')}`, 10 - i, `l${i}`));
    const capped = capUpdateOwners(owners);
    expect(capped).toHaveLength(10);
    const ancient = capped.find((owner) => owner.manager === 'ancient-changes');
    // m10 (10:00) and m09 (10:01) are the oldest.
    expect(ancient).toMatchObject({ operation: 'Update', apiVersion: 'cairn.dev/v1', time: '2024-05-01T10:01:00Z' });
    expect(ancient!.fields.toFieldsV1()).toEqual({ 'f:metadata': { 'f:labels': { 'f:l10': {}, 'f:l9': {} } } });
    expect(capped.map((owner) => owner.manager)).not.toContain('m10');
    expect(capped.map((owner) => owner.manager)).not.toContain('m09');
  });

  it('folds into the existing ancient-changes entry of the version', () => {
    const owners = [updater('ancient-changes', 0, 'old'), ...Array.from({ length: 10 }, (_, i) => updater(`m${i}`, i + 1, `l${i}`))];
    const capped = capUpdateOwners(owners);
    expect(capped).toHaveLength(10);
    expect(capped.find((owner) => owner.manager === 'ancient-changes')!.fields.toFieldsV1()).toEqual({
      'f:metadata': { 'f:labels': { 'f:l0': {}, 'f:old': {} } },
    });
  });

  it('breaks ties of the same second by manager identity, and buckets per apiVersion', () => {
    const owners = [
      ...Array.from({ length: 6 }, (_, i) => updater(`v1-${i}`, 0, `a${i}`)),
      ...Array.from({ length: 6 }, (_, i) => updater(`beta-${i}`, 0, `b${i}`, 'cairn.dev/v1beta1')),
    ];
    const capped = summary(capUpdateOwners(owners));
    expect(capped).toHaveLength(10);
    // Sorted by identity: every beta-* before every v1-*; beta-0 starts the v1beta1 bucket,
    // beta-1 and beta-2 fold into it, which brings twelve down to ten.
    expect(capped.filter((owner) => owner.manager === 'ancient-changes')).toEqual([
      {
        manager: 'ancient-changes',
        operation: 'Update',
        apiVersion: 'cairn.dev/v1beta1',
        time: '2024-05-01T10:00:00Z',
        fields: { 'f:metadata': { 'f:labels': { 'f:b0': {}, 'f:b1': {}, 'f:b2': {} } } },
      },
    ]);
  });

  it('drops owners of nothing before counting', () => {
    const owners = [...Array.from({ length: 10 }, (_, i) => updater(`m${i}`, i, `l${i}`)), { ...updater('empty', 0, 'x'), fields: FieldSet.empty }];
    expect(capUpdateOwners(owners).map((owner) => owner.manager)).not.toContain('ancient-changes');
  });
});
