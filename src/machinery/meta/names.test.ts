/**
 * Object names checked by kube's rules: DNS subdomains (and generateName prefixes) and path
 * segments.
 */
import { describe, expect, it } from 'vitest';
import { nameIsDnsSubdomain, validatePathSegmentName } from './names.js';

describe('nameIsDnsSubdomain', () => {
  it('accepts a generateName ending in a dash, which a name may not end in', () => {
    expect(nameIsDnsSubdomain('build-', true)).toEqual([]);
    expect(nameIsDnsSubdomain('build-', false)).toHaveLength(1);
    expect(nameIsDnsSubdomain('-', true)).toHaveLength(1);
    expect(nameIsDnsSubdomain('Build-', true)).toHaveLength(1);
  });
});

describe('validatePathSegmentName', () => {
  it('refuses . and .. as names but not as prefixes, and / or % in either', () => {
    expect(validatePathSegmentName('..')).toEqual(["may not be '..'"]);
    expect(validatePathSegmentName('.')).toEqual(["may not be '.'"]);
    expect(validatePathSegmentName('..', true)).toEqual([]);
    expect(validatePathSegmentName('a/b%', true)).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(validatePathSegmentName('gpu:large Team A')).toEqual([]);
  });
});
