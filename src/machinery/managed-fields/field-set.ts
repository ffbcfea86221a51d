/**
 * A set of paths, as a trie: the data structure of field ownership
 * (structured-merge-diff's `fieldpath.Set`), and its fieldsV1 JSON form.
 */
import { isPlainObject } from '../meta/object.js';
import { canonicalElement, compareElements, type Path, type PathElement } from './field-path.js';

/**
 * The fieldsV1 form of a FieldSet: each key is an element; `{}` marks the path as a
 * member, `"."` (written first) marks it as a member when it also has children:
 * `{"f:spec":{"f:replicas":{},"f:steps":{"k:{\"name\":\"fetch\"}":{".":{},"f:name":{}}}}}`.
 */
export interface FieldsV1 {
  readonly [element: string]: FieldsV1;
}

/**
 * An immutable set of paths. A path is a member on its own: `.spec.steps[name="a"]`
 * (the item) and `.spec.steps[name="a"].image` (a field of it) are two members.
 *
 * @example
 * const owned = FieldSet.of([fieldPath('spec', 'replicas')]);
 * owned.toFieldsV1(); // {"f:spec":{"f:replicas":{}}}
 */
export class FieldSet {
  /** The set without members. */
  static readonly empty = new FieldSet(new Set(), new Map());

  /** Elements whose one-element path is a member. */
  readonly #members: ReadonlySet<PathElement>;
  /** The members under each element, relative to it; never empty sets. */
  readonly #children: ReadonlyMap<PathElement, FieldSet>;

  private constructor(members: ReadonlySet<PathElement>, children: ReadonlyMap<PathElement, FieldSet>) {
    this.#members = members;
    this.#children = children;
  }

  /** The set of these paths; the empty path (the root) is never a member. */
  static of(paths: Iterable<Path>): FieldSet {
    const root = draft();
    for (const path of paths) {
      if (path.length === 0) continue;
      let node = root;
      for (const element of path.slice(0, -1)) {
        let next = node.children.get(element);
        if (!next) node.children.set(element, (next = draft()));
        node = next;
      }
      node.members.add(path[path.length - 1]);
    }
    return FieldSet.#seal(root);
  }

  /** Reads a fieldsV1 document, as kube-apiserver writes it; throws when it is malformed. */
  static fromFieldsV1(fields: unknown): FieldSet {
    return FieldSet.#read(fields).set;
  }

  /** Whether the set has no members. */
  get isEmpty(): boolean {
    return this.#members.size === 0 && this.#children.size === 0;
  }

  /** Whether both sets have the same members. */
  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty && other.difference(this).isEmpty;
  }

  /** Whether `path` is a member. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.#members.has(path[0]);
    return this.child(path[0]).has(path.slice(1));
  }

  /** The members under `element`, relative to it (structured-merge-diff's `WithPrefix`). */
  child(element: PathElement): FieldSet {
    return this.#children.get(element) ?? FieldSet.empty;
  }

  /** Whether `element`, or anything under it, is a member. */
  touches(element: PathElement): boolean {
    return this.#members.has(element) || this.#children.has(element);
  }

  /** The members of either set. */
  union(other: FieldSet): FieldSet {
    if (other.isEmpty) return this;
    if (this.isEmpty) return other;
    const members = new Set([...this.#members, ...other.#members]);
    const elements = new Set([...this.#children.keys(), ...other.#children.keys()]);
    return FieldSet.#make(
      members,
      [...elements].map((e) => [e, this.child(e).union(other.child(e))]),
    );
  }

  /** The members of both sets. */
  intersection(other: FieldSet): FieldSet {
    const members = new Set([...this.#members].filter((e) => other.#members.has(e)));
    return FieldSet.#make(
      members,
      [...this.#children].map(([e, set]) => [e, set.intersection(other.child(e))]),
    );
  }

  /** The members of this set that are not members of `other`. */
  difference(other: FieldSet): FieldSet {
    if (other.isEmpty) return this;
    const members = new Set([...this.#members].filter((e) => !other.#members.has(e)));
    return FieldSet.#make(
      members,
      [...this.#children].map(([e, set]) => [e, set.difference(other.child(e))]),
    );
  }

  /** The members of this set that are neither members of `other` nor under one of them. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.isEmpty) return this;
    const members = new Set([...this.#members].filter((e) => !other.#members.has(e)));
    const children = [...this.#children].filter(([e]) => !other.#members.has(e));
    return FieldSet.#make(
      members,
      children.map(([e, set]) => [e, set.recursiveDifference(other.child(e))]),
    );
  }

  /** Every member, in structured-merge-diff's order: an element's own path, then the paths under it. */
  paths(): Path[] {
    const out: Path[] = [...this.#members].sort(compareElements).map((e) => [e]);
    for (const [element, set] of [...this.#children].sort(([a], [b]) => compareElements(a, b))) {
      out.push(...set.paths().map((path) => [element, ...path]));
    }
    return out;
  }

  /** The fieldsV1 document of this set, its keys in kube-apiserver's order. */
  toFieldsV1(): FieldsV1 {
    const elements = [...new Set([...this.#members, ...this.#children.keys()])].sort(compareElements);
    const out: Record<string, FieldsV1> = {};
    for (const element of elements) {
      const children = this.#children.get(element);
      out[element] = !children ? {} : this.#members.has(element) ? { '.': {}, ...children.toFieldsV1() } : children.toFieldsV1();
    }
    return out;
  }

  static #make(members: ReadonlySet<PathElement>, children: Iterable<readonly [PathElement, FieldSet]>): FieldSet {
    const nonEmpty = new Map([...children].filter(([, set]) => !set.isEmpty));
    return members.size === 0 && nonEmpty.size === 0 ? FieldSet.empty : new FieldSet(members, nonEmpty);
  }

  static #seal(node: Draft): FieldSet {
    return FieldSet.#make(
      node.members,
      [...node.children].map(([e, child]) => [e, FieldSet.#seal(child)] as const),
    );
  }

  /** Reads one level of fieldsV1: the set under it, and whether the path itself is a member. */
  static #read(fields: unknown): { set: FieldSet; member: boolean } {
    if (!isPlainObject(fields)) throw new Error('fieldsV1: expected a JSON object');
    const members = new Set<PathElement>();
    const children = new Map<PathElement, FieldSet>();
    let member = false;
    for (const [key, value] of Object.entries(fields)) {
      if (key === '.') {
        member = true;
        continue;
      }
      const element = canonicalElement(key);
      if (element === undefined) continue;
      const child = FieldSet.#read(value);
      if (child.member) members.add(element);
      // Two spellings of one key element (`k:{"a":1,"b":2}`, `k:{"b":2,"a":1}`) read as one.
      children.set(element, (children.get(element) ?? FieldSet.empty).union(child.set));
    }
    const set = FieldSet.#make(members, children);
    // `{}` (nothing under the path) marks the path itself.
    return { set, member: member || set.isEmpty };
  }
}

/** A mutable trie node while a set is being built. */
interface Draft {
  readonly members: Set<PathElement>;
  readonly children: Map<PathElement, Draft>;
}

function draft(): Draft {
  return { members: new Set(), children: new Map() };
}
