/**
 * Name rules from k8s.io/apimachinery/pkg/util/validation and
 * k8s.io/apimachinery/pkg/api/validation/path.
 */
import { randomInt } from 'node:crypto';

const dns1123LabelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * How a kind's names are validated, as kube's `ValidateNameFunc`: the problems with
 * `name`, or with a `generateName` when `prefix` (a random suffix will follow it).
 */
export type NameValidation = (name: string, prefix: boolean) => string[];

/** The default rule for object names, kube's `NameIsDNSSubdomain`. */
export const nameIsDnsSubdomain: NameValidation = (name, prefix) =>
  // A prefix may end in '-': the generated suffix makes the whole name end alphanumeric.
  validateDns1123Subdomain(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);

/** Problems with a DNS-1123 subdomain (object names); empty when valid. */
export function validateDns1123Subdomain(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!dns1123SubdomainPattern.test(value)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems;
}

/** Problems with a DNS-1123 label (namespace names); empty when valid. */
export function validateDns1123Label(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!dns1123LabelPattern.test(value)) {
    problems.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems;
}

/**
 * Problems with a name used as a URL path segment (kube's `path.ValidatePathSegmentName`):
 * every name must pass it, and kinds named as freely as ClusterRoles need nothing more.
 * A `prefix` may be `.` or `..`, since a suffix follows it.
 */
export function validatePathSegmentName(name: string, prefix = false): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
  return problems;
}

const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const generateNameMaxBase = 63 - 5;

/** Name generation as `names.SimpleNameGenerator`: the base, cut to fit, plus 5 random characters. */
export function generateName(base: string): string {
  const prefix = base.length > generateNameMaxBase ? base.slice(0, generateNameMaxBase) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += generateNameAlphabet[randomInt(generateNameAlphabet.length)];
  return prefix + suffix;
}
