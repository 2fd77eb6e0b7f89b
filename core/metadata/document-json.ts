/**
 * The metadata document's JSON text for a store, byte for byte what `JSON.stringify` gives, with
 * the text of each frozen table and function entry kept (keyed by the entry object) and reused.
 * A snapshot's entries are frozen and a draft shares the unchanged ones (cow-draft.ts), so after
 * one change at 1,000 tables only the changed entry is serialised again instead of 5 MB.
 */
import type { MetadataDocument } from './types.js';

const entryTexts = new WeakMap<object, string>();

type Json = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null);

/** An entry's text, remembered only for frozen entries (a mutable one may change under the key). */
function entryJson(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null || !Object.isFrozen(entry)) return JSON.stringify(entry) ?? 'null';
  let text = entryTexts.get(entry);
  if (text === undefined) {
    text = JSON.stringify(entry) ?? 'null';
    entryTexts.set(entry, text);
  }
  return text;
}

/** Writes JSON text as fragments into one list, joined once at the end (5 MB copied once, not per level). */
class JsonWriter {
  readonly parts: string[] = [];

  array(items: readonly unknown[], item: (v: unknown) => void): void {
    this.parts.push('[');
    items.forEach((v, i) => {
      if (i > 0) this.parts.push(',');
      item(v);
    });
    this.parts.push(']');
  }

  /** Keys whose value has no JSON are left out, as JSON.stringify does; `member` writes chosen keys itself. */
  object(obj: Json, member: (key: string, value: unknown) => boolean): void {
    this.parts.push('{');
    let first = true;
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      const mark = this.parts.length;
      this.parts.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      if (member(key, value)) {
        first = false;
        continue;
      }
      const text = JSON.stringify(value);
      if (text === undefined) this.parts.length = mark;
      else {
        this.parts.push(text);
        first = false;
      }
    }
    this.parts.push('}');
  }
}

/** Only plain objects are walked here; anything else (a `toJSON`, say) goes to JSON.stringify whole. */
const walkable = (v: unknown): v is Json => isPlainObject(v) && typeof v['toJSON'] !== 'function';

function writeSource(out: JsonWriter, source: unknown): void {
  if (!walkable(source)) {
    out.parts.push(JSON.stringify(source) ?? 'null');
    return;
  }
  out.object(source, (key, value) => {
    if ((key !== 'tables' && key !== 'functions') || !Array.isArray(value)) return false;
    out.array(value, (entry) => out.parts.push(entryJson(entry)));
    return true;
  });
}

/** `JSON.stringify(doc)`, reusing the text of frozen table and function entries. */
export function metadataDocumentJson(doc: MetadataDocument): string {
  if (!walkable(doc)) return JSON.stringify(doc);
  const out = new JsonWriter();
  out.object(doc, (key, value) => {
    if (key !== 'sources' || !Array.isArray(value)) return false;
    out.array(value, (source) => writeSource(out, source));
    return true;
  });
  return out.parts.join('');
}
