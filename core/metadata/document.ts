/**
 * Checking, upgrading and exporting whole metadata documents (replace_metadata / export_metadata).
 * Older exports (version 1 and 2: tables at the top level, before sources existed) are moved into
 * the `default` source, as the reference engine does.
 */
import { EngineError } from '../errors.js';
import { METADATA_KEY_ORDER, type MetadataDocument, type SourceMetadata } from './types.js';

const SOURCE_KEY_ORDER = ['name', 'kind', 'tables', 'functions', 'configuration', 'customization'];

function fail(message: string, path: string): never {
  throw new EngineError('parse-failed', message, { path });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the document's structure (not its meaning: the schema-cache build does that). */
export function parseMetadataDocument(raw: unknown, path: string, defaultSource: () => SourceMetadata | null): MetadataDocument {
  if (!isObject(raw)) fail('expected Object for metadata', path);
  const version = raw['version'] ?? 1;
  if (version === 1 || version === 2) return upgradeLegacy(raw, path, defaultSource);
  if (version !== 3) fail(`unsupported metadata version ${JSON.stringify(version)}; expected 1, 2 or 3`, `${path}.version`);
  const sources = raw['sources'] ?? [];
  if (!Array.isArray(sources)) fail('expected Array for "sources"', `${path}.sources`);
  const names = new Set<string>();
  sources.forEach((s, i) => {
    const p = `${path}.sources[${i}]`;
    if (!isObject(s)) fail('expected Object for source', p);
    if (typeof s['name'] !== 'string') fail('key "name" not found', p);
    if (names.has(s['name'])) fail(`multiple sources named "${s['name']}"`, `${p}.name`);
    names.add(s['name']);
    if (s['kind'] !== undefined && typeof s['kind'] !== 'string') fail('expected String for "kind"', `${p}.kind`);
    if (!isObject(s['configuration'])) fail('key "configuration" not found', p);
    const tables = s['tables'] ?? [];
    if (!Array.isArray(tables)) fail('expected Array for "tables"', `${p}.tables`);
    tables.forEach((t, j) => {
      if (!isObject(t) || t['table'] === undefined) fail('key "table" not found', `${p}.tables[${j}]`);
    });
  });
  const doc = { ...raw, version: 3, sources: sources.map(normaliseSource) } as MetadataDocument;
  return doc;
}

function normaliseSource(s: Record<string, unknown>): SourceMetadata {
  const tables = ((s['tables'] as unknown[]) ?? []).map((t) => {
    const entry = { ...(t as Record<string, unknown>) };
    if (typeof entry['table'] === 'string') entry['table'] = { schema: 'public', name: entry['table'] };
    // The warehouse kind's metadata names a table's schema `dataset` (`{dataset, name}`).
    else if (isObject(entry['table']) && entry['table']['schema'] === undefined && typeof entry['table']['dataset'] === 'string') {
      entry['table'] = { schema: entry['table']['dataset'], name: entry['table']['name'] };
    }
    return entry;
  });
  const functions = Array.isArray(s['functions']) ? { functions: (s['functions'] as unknown[]).map(normaliseFunction) } : {};
  // The reference's metadata format: a source that names no kind is a PostgreSQL source.
  return { ...s, kind: (s["kind"] as string | undefined) ?? "postgres", tables, ...functions } as unknown as SourceMetadata;
}

/** `"f"`, `{schema, name}` (version 1) or `{function: "f" | {schema?, name}, ...}` → `{function: {schema, name}, ...}`. */
function normaliseFunction(f: unknown): unknown {
  const qualified = (v: unknown): unknown => {
    if (typeof v === 'string') return { schema: 'public', name: v };
    if (isObject(v) && typeof v['name'] === 'string') return { schema: (v['schema'] as string | undefined) ?? 'public', name: v['name'] };
    return v;
  };
  if (!isObject(f)) return typeof f === 'string' ? { function: qualified(f) } : f;
  if (!('function' in f)) return typeof f['name'] === 'string' ? { function: qualified(f) } : f;
  return { ...f, function: qualified(f['function']) };
}

function upgradeLegacy(raw: Record<string, unknown>, path: string, defaultSource: () => SourceMetadata | null): MetadataDocument {
  const { version: _v, tables, functions, ...rest } = raw;
  const base = defaultSource();
  if (!base) fail('metadata of version 1 or 2 needs a default source: start the engine with a database URL', path);
  if (tables !== undefined && !Array.isArray(tables)) fail('expected Array for "tables"', `${path}.tables`);
  const source = normaliseSource({ ...base, tables: tables ?? [], ...(functions ? { functions } : {}) });
  return { ...(rest as Partial<MetadataDocument>), version: 3, sources: [source] };
}

/**
 * The export form: keys in the reference order, empty collections left out. `tableSchemaKey`
 * names, per source kind, the key its tables' schema is written under (`dataset` for the
 * warehouse kind, as the reference exports it); `schema` otherwise.
 */
export function exportMetadata(doc: MetadataDocument, tableSchemaKey: (kind: string) => string = () => 'schema'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rec = doc as unknown as Record<string, unknown>;
  for (const key of METADATA_KEY_ORDER) {
    const value = key === 'sources' ? doc.sources.map((s) => orderSource(withTableKey(s, tableSchemaKey(s.kind)))) : rec[key];
    if (key !== 'version' && key !== 'sources' && isEmpty(value)) continue;
    out[key] = value;
  }
  for (const [key, value] of Object.entries(rec)) {
    if (!(key in out) && !isEmpty(value) && !(METADATA_KEY_ORDER as readonly string[]).includes(key)) out[key] = value;
  }
  return out;
}

function withTableKey(s: SourceMetadata, key: string): SourceMetadata {
  if (key === 'schema') return s;
  const tables = s.tables.map((t) => ({ ...t, table: { [key]: t.table.schema, name: t.table.name } })) as unknown as SourceMetadata['tables'];
  return { ...s, tables };
}

function orderSource(s: SourceMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rec = s as Record<string, unknown>;
  for (const key of SOURCE_KEY_ORDER) {
    if (key === 'functions' && isEmpty(rec[key])) continue;
    if (key === 'customization' && isEmpty(rec[key])) continue;
    if (rec[key] !== undefined) out[key] = rec[key];
  }
  for (const [key, value] of Object.entries(rec)) if (!(key in out) && value !== undefined) out[key] = value;
  return out;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}
