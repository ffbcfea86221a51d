/**
 * Decoding of JSON and YAML request bodies with bounds, before anything walks
 * them: a nesting depth limit (every later walk of client data may recurse that
 * deep and no deeper), strings made well-formed as Go's decoder makes them (a lone
 * UTF-16 surrogate becomes U+FFFD), and YAML alias expansion capped.
 */
import { Composer, Parser, type CST } from 'yaml';
import { badRequest } from '../errors.js';
import { isPlainObject } from '../meta/object.js';

/** kube-apiserver's limit on request bodies (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * The deepest nesting of arrays and objects a request body, or an object a patch
 * produces, may have. kube's Go decoder stops at 10,000; JavaScript recursion and the
 * YAML composer do not go that deep safely, and no Cairn object needs more than a few
 * dozen levels.
 */
export const maxNestingDepth = 256;

/** What stands one level deeper than a CST token: its items' keys and values. */
function cstChildren(token: CST.Token): (CST.Token | null | undefined)[] {
  switch (token.type) {
    case 'document':
      return [token.value];
    case 'block-map':
    case 'block-seq':
    case 'flow-collection':
      return token.items.flatMap((item) => ['key' in item ? item.key : undefined, item.value]);
    default:
      return [];
  }
}

/** The nesting depth of a YAML text, read from its concrete syntax tree without recursion. */
function yamlDepth(tokens: readonly CST.Token[]): number {
  let deepest = 0;
  const pending: [CST.Token, number][] = tokens.map((token) => [token, 0]);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [token, depth] = next;
    const collection = token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection';
    const inner = collection ? depth + 1 : depth;
    deepest = Math.max(deepest, inner);
    if (deepest > maxNestingDepth) return deepest;
    for (const child of cstChildren(token)) if (child) pending.push([child, inner]);
  }
  return deepest;
}

/**
 * The nesting depth of a decoded value, walked without recursion; stops counting
 * past `limit`.
 */
export function nestingDepth(value: unknown, limit = maxNestingDepth): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** The message of a body nested past the limit. */
export function tooDeepMessage(what: string): string {
  return `${what} exceeds the maximum nesting depth of ${maxNestingDepth}`;
}

/**
 * Replaces lone surrogates in every string and key of a freshly decoded value, in
 * place, as Go's decoder does; PostgreSQL could not store them. Walks without recursion.
 */
function makeWellFormed(root: unknown): unknown {
  const pending: unknown[] = [root];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (Array.isArray(item)) {
      item.forEach((child, index) => {
        if (typeof child === 'string') item[index] = child.toWellFormed();
        else pending.push(child);
      });
    } else if (isPlainObject(item)) {
      for (const [key, child] of Object.entries(item)) {
        const fixed = typeof child === 'string' ? child.toWellFormed() : child;
        if (!key.isWellFormed()) delete item[key];
        item[key.toWellFormed()] = fixed;
        if (typeof child !== 'string') pending.push(child);
      }
    }
  }
  return typeof root === 'string' ? root.toWellFormed() : root;
}

/** Parses JSON (V8's parser does not recurse); 400 when malformed or nested too deep. */
export function decodeJson(raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw badRequest(`error decoding JSON body: ${(error as Error).message}`);
  }
  if (nestingDepth(value) > maxNestingDepth) throw badRequest(tooDeepMessage('the JSON body'));
  return makeWellFormed(value);
}

/**
 * Parses one YAML document; 400 when malformed, nested too deep (checked on the
 * syntax tree, before the composer recurses into it, and again after aliases
 * expand), or expanding too many aliases.
 */
export function decodeYaml(raw: string): unknown {
  const tokens = Array.from(new Parser().parse(raw));
  if (yamlDepth(tokens) > maxNestingDepth) throw badRequest(tooDeepMessage('the YAML body'));
  const documents = Array.from(new Composer({ uniqueKeys: false }).compose(tokens));
  if (documents.length > 1) throw badRequest('error converting YAML to JSON: the body holds more than one YAML document');
  const document = documents[0];
  if (!document) return null;
  const problem = document.errors[0];
  if (problem) throw badRequest(`error converting YAML to JSON: ${problem.message}`);
  let value: unknown;
  try {
    // yaml's default maxAliasCount refuses a "billion laughs" document.
    value = document.toJS();
  } catch (error) {
    throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
  }
  if (nestingDepth(value) > maxNestingDepth) throw badRequest(tooDeepMessage('the YAML body'));
  return makeWellFormed(value);
}
