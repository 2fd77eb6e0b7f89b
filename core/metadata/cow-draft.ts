/**
 * Copy-on-write drafts of the metadata document. A snapshot's document is deep-frozen; an
 * operation's draft is a proxy over it that copies a node (shallowly) the first time something
 * under it is reached, and only the nodes written to are rebuilt when the draft is turned back
 * into a frozen document. At 1,000 tables a whole copy of the 5 MB document cost 20-70 ms per
 * operation (twice: the draft, then the snapshot's own copy) plus its garbage; a change to one
 * table now rebuilds that table's entry, its source, the tables array and the root, and shares
 * every other entry with the serving snapshot. Unchanged entries keep their identity, which later
 * steps use as "unchanged" (the permission memo, the store's serialisation).
 *
 * Handlers keep writing `ctx.draft` in place as before: every object reached through the draft is
 * itself a draft (the same proxy each time, so `indexOf` and `===` work), except values a handler
 * put there itself, which are its own and are copied into the frozen result.
 */
import { cloneJsonValue, jsonValuesEqual } from '../json-type.js';
import type { MetadataDocument } from './types.js';

type Container = Record<PropertyKey, unknown> | unknown[];

interface DraftNode {
  /** The frozen object this node drafts. */
  base: Container;
  /** A shallow copy, made when something below is reached; children become drafts as read. */
  copy: Container | null;
  /** Written to (here or below): the frozen result needs a new object for it. */
  modified: boolean;
  parent: DraftNode | null;
  draft: MetadataDraft;
  proxy: Container;
}

const NODE = Symbol('metadata draft node');

const isObject = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** The draft node behind a proxy, if `v` is one. */
function nodeOf(v: unknown): DraftNode | undefined {
  return isObject(v) ? ((v as Record<PropertyKey, unknown>)[NODE] as DraftNode | undefined) : undefined;
}

/**
 * Freezes a JSON-shaped value and everything in it. A frozen object is taken to be frozen all the
 * way down (this module freezes nothing else), so shared frozen entries are not walked again.
 */
export function freezeDocument<T>(value: T): T {
  if (!isObject(value) || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const v of value) freezeDocument(v);
  else for (const key of Object.keys(value)) freezeDocument((value as Record<string, unknown>)[key]);
  return value;
}

function latest(node: DraftNode): Container {
  return node.copy ?? node.base;
}

function prepareCopy(node: DraftNode): Container {
  if (!node.copy) node.copy = Array.isArray(node.base) ? node.base.slice() : { ...node.base };
  return node.copy;
}

function markModified(node: DraftNode): void {
  node.draft.written();
  for (let n: DraftNode | null = node; n && !n.modified; n = n.parent) n.modified = true;
}

const traps: ProxyHandler<Container> = {
  get(target, prop, receiver) {
    const node = nodeOfTarget(target);
    if (prop === NODE) return node;
    const source = latest(node);
    if (!Object.prototype.hasOwnProperty.call(source, prop)) return Reflect.get(source, prop, receiver);
    const value = (source as Record<PropertyKey, unknown>)[prop];
    // A frozen child (shared with the base) becomes a draft the first time it is reached here.
    if (isObject(value) && Object.isFrozen(value)) {
      const child = createNode(value, node, node.draft);
      (prepareCopy(node) as Record<PropertyKey, unknown>)[prop] = child.proxy;
      return child.proxy;
    }
    return value;
  },
  set(target, prop, value) {
    const node = nodeOfTarget(target);
    const copy = prepareCopy(node) as Record<PropertyKey, unknown>;
    if (Object.prototype.hasOwnProperty.call(copy, prop) && copy[prop] === value && prop !== 'length') return true;
    copy[prop] = value;
    markModified(node);
    return true;
  },
  deleteProperty(target, prop) {
    const node = nodeOfTarget(target);
    const copy = prepareCopy(node) as Record<PropertyKey, unknown>;
    if (!Object.prototype.hasOwnProperty.call(copy, prop)) return true;
    delete copy[prop];
    markModified(node);
    return true;
  },
  defineProperty(target, prop, descriptor) {
    const node = nodeOfTarget(target);
    if (!('value' in descriptor)) throw new TypeError('metadata drafts hold data properties only');
    (prepareCopy(node) as Record<PropertyKey, unknown>)[prop] = descriptor.value;
    markModified(node);
    return true;
  },
  has(target, prop) {
    if (prop === NODE) return true;
    return prop in latest(nodeOfTarget(target));
  },
  ownKeys(target) {
    return Reflect.ownKeys(latest(nodeOfTarget(target)));
  },
  getOwnPropertyDescriptor(target, prop) {
    const node = nodeOfTarget(target);
    const source = latest(node);
    const own = Reflect.getOwnPropertyDescriptor(source, prop);
    if (!own) return undefined;
    // The proxy's target is a stand-in: only an array's `length` is non-configurable on it.
    const isLength = Array.isArray(source) && prop === 'length';
    return { value: traps.get!(target, prop, undefined), writable: true, enumerable: own.enumerable ?? true, configurable: !isLength };
  },
  getPrototypeOf(target) {
    return Object.getPrototypeOf(nodeOfTarget(target).base);
  },
  setPrototypeOf() {
    throw new TypeError('metadata drafts keep their prototype');
  },
  preventExtensions() {
    throw new TypeError('metadata drafts cannot be frozen or sealed');
  },
};

function nodeOfTarget(target: Container): DraftNode {
  return Array.isArray(target) ? (target[0] as DraftNode) : (target as unknown as { [NODE]: DraftNode })[NODE];
}

function createNode(base: Container, parent: DraftNode | null, draft: MetadataDraft): DraftNode {
  const node = { base, copy: null, modified: false, parent, draft } as unknown as DraftNode;
  // The proxy's target must not be the frozen base (a proxy may not report other values for a
  // frozen object's properties): an array stand-in keeps Array.isArray true.
  const target: Container = Array.isArray(base) ? [node] : ({ [NODE]: node } as Record<PropertyKey, unknown>);
  node.proxy = new Proxy(target, traps);
  return node;
}

/** One request's working copy of a frozen metadata document. */
export class MetadataDraft {
  private root: DraftNode;
  private result: { document: MetadataDocument; ownValues: Array<[unknown, unknown]> } | null = null;

  constructor(base: MetadataDocument) {
    this.root = createNode(freezeDocument(base) as unknown as Container, null, this);
  }

  /** What handlers read and write (`ctx.draft`). */
  get document(): MetadataDocument {
    return this.root.proxy as unknown as MetadataDocument;
  }

  /**
   * Replaces the whole document (replace_metadata, clear_metadata, run_sql's carried metadata).
   * The value is frozen in place: it belongs to the draft from now on.
   */
  replace(value: MetadataDocument): void {
    if (value === this.document) return;
    const node = nodeOf(value);
    // A new document built from parts of this draft (`{...ctx.draft, actions: []}`) holds drafts:
    // those are replaced by their frozen form; a document of its own is frozen in place.
    const base = node ? this.frozen(node) : freezeDocument(hasDrafts(value) ? unwrapDrafts(value, (n) => this.frozen(n)) : value);
    this.root = createNode(base as unknown as Container, null, this);
    this.written();
  }

  /** @internal Called by the proxies on every write. */
  written(): void {
    this.result = null;
  }

  /**
   * The draft as it stands, frozen, sharing every unchanged entry with the document it started
   * from. The draft stays usable; the same object is answered until the next write.
   */
  current(): MetadataDocument {
    // Values a handler put in itself can change without passing through a proxy: compare them.
    if (this.result && this.result.ownValues.every(([own, frozen]) => jsonValuesEqual(own, frozen))) return this.result.document;
    const ownValues: Array<[unknown, unknown]> = [];
    const document = this.frozen(this.root, ownValues) as unknown as MetadataDocument;
    this.result = { document, ownValues };
    return document;
  }

  private frozen(node: DraftNode, ownValues: Array<[unknown, unknown]> = []): Container {
    if (!node.modified) return node.base;
    const source = latest(node);
    const out: Container = Array.isArray(source) ? new Array<unknown>(source.length) : {};
    for (const key of Object.keys(source)) {
      (out as Record<string, unknown>)[key] = this.frozenValue((source as Record<string, unknown>)[key], ownValues);
    }
    Object.freeze(out);
    return out;
  }

  private frozenValue(value: unknown, ownValues: Array<[unknown, unknown]>): unknown {
    if (!isObject(value)) return value;
    const node = nodeOf(value);
    if (node) return this.frozen(node, ownValues);
    if (Object.isFrozen(value)) return value;
    // A handler's own value (it may hold drafts it read elsewhere): copied, then frozen.
    const copy = freezeDocument(unwrapDrafts(value, (n) => this.frozen(n, ownValues)));
    ownValues.push([value, copy]);
    return copy;
  }
}

/** A copy of `value` in which every draft is replaced by its frozen form (frozen parts are shared). */
function unwrapDrafts(value: unknown, frozen: (node: DraftNode) => Container): unknown {
  if (!isObject(value)) return value;
  const node = nodeOf(value);
  if (node) return frozen(node);
  if (Object.isFrozen(value)) return value;
  if (!isPlainJson(value)) return cloneJsonValue(value);
  if (Array.isArray(value)) return value.map((v) => unwrapDrafts(v, frozen));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = unwrapDrafts((value as Record<string, unknown>)[key], frozen);
  return out;
}

function hasDrafts(value: unknown): boolean {
  if (!isObject(value) || Object.isFrozen(value)) return false;
  if (nodeOf(value)) return true;
  if (Array.isArray(value)) return value.some(hasDrafts);
  return Object.keys(value).some((key) => hasDrafts((value as Record<string, unknown>)[key]));
}

function isPlainJson(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is (part of) a metadata draft. */
export function isMetadataDraft(value: unknown): boolean {
  return nodeOf(value) !== undefined;
}
