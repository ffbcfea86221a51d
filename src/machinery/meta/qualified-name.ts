/**
 * The rules for label keys and values from k8s.io/apimachinery/pkg/util/validation,
 * with its messages: selectors and ObjectMeta validation share them.
 */

const qualifiedNameFormat = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNamePattern = new RegExp(`^${qualifiedNameFormat}$`);
const qualifiedNameMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFormat = `(${qualifiedNameFormat})?`;
const labelValuePattern = new RegExp(`^${labelValueFormat}$`);
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFormat = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1123SubdomainPattern = new RegExp(`^${dns1123SubdomainFormat}$`);
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexError(message: string, format: string, ...examples: string[]): string {
  const shown = examples.map((e, i) => `${i > 0 ? ' or ' : ''}'${e}', `).join('');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.IsQualifiedName: `[prefix/]name`, the rule for label keys. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  const nameRegexError = regexError(qualifiedNameMessage, qualifiedNameFormat, 'MyName', 'my.name', '123-abc');
  if (parts.length > 2) {
    return [`a qualified name ${nameRegexError} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errors: string[] = [];
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errors.push(`prefix part ${maxLenError(253)}`);
      if (!dns1123SubdomainPattern.test(prefix)) {
        errors.push(`prefix part ${regexError(dns1123SubdomainMessage, dns1123SubdomainFormat, 'example.com')}`);
      }
    }
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNamePattern.test(name)) errors.push(`name part ${nameRegexError}`);
  return errors;
}

/** validation.IsValidLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push(maxLenError(63));
  if (!labelValuePattern.test(value)) errors.push(regexError(labelValueMessage, labelValueFormat, 'MyValue', 'my_value', '12345'));
  return errors;
}
