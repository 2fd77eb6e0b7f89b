/**
 * Removes inconsistent objects from a metadata draft (drop_inconsistent_metadata). Objects are
 * located by their type and definition, in the shapes the schema-cache resolver reports.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { InconsistentObject, MetadataDocument, QualifiedTable, TableMetadata } from './types.js';

export type InconsistencyDropper = (draft: MetadataDocument, object: InconsistentObject) => void;

const DROPPERS_KEY = 'inconsistencyDroppers';

/**
 * How to remove the inconsistent objects of types that plugins report (query collections, REST
 * endpoints, ...), by type: a plugin that reports a type registers how to drop it.
 */
export function inconsistencyDroppers(container: AwilixContainer): Map<string, InconsistencyDropper> {
  if (!container.hasRegistration(DROPPERS_KEY)) container.register(DROPPERS_KEY, asValue(new Map<string, InconsistencyDropper>()));
  return container.resolve<Map<string, InconsistencyDropper>>(DROPPERS_KEY);
}

type Def = Record<string, unknown>;

const sameTable = (a: QualifiedTable, b: unknown): boolean => {
  const t = typeof b === 'string' ? { schema: 'public', name: b } : (b as QualifiedTable | undefined);
  return !!t && a.schema === t.schema && a.name === t.name;
};

function sourceName(o: InconsistentObject): string {
  const def = o.definition as Def | undefined;
  if (typeof def?.['source'] === 'string') return def['source'];
  return / in source (\S+)$/.exec(o.name)?.[1] ?? 'default';
}

const PERMISSION_KEYS: Record<string, keyof TableMetadata> = {
  select_permission: 'select_permissions',
  insert_permission: 'insert_permissions',
  update_permission: 'update_permissions',
  delete_permission: 'delete_permissions',
};

export function dropInconsistentObjects(draft: MetadataDocument, objects: readonly InconsistentObject[]): void {
  for (const o of objects) {
    const def = (o.definition ?? {}) as Def;
    if (o.type === 'source') {
      draft.sources = draft.sources.filter((s) => s.name !== def['name']);
      continue;
    }
    const source = draft.sources.find((s) => s.name === sourceName(o));
    if (!source) continue;
    if (o.type === 'table') {
      // A table's definition is the qualified table name itself (`{schema, name}`).
      const target = def['table'] ?? def;
      source.tables = source.tables.filter((t) => !sameTable(t.table, target));
      continue;
    }
    if (o.type === 'function') {
      // A function's definition is its qualified name (older reports wrapped it in `function`).
      const target = def['function'] ?? def;
      source.functions = (source.functions ?? []).filter((f) => !sameTable(f.function, target));
      if (source.functions.length === 0) delete source.functions;
      continue;
    }
    const table = source.tables.find((t) => sameTable(t.table, def['table']));
    if (!table) continue;
    if (o.type === 'object_relation' || o.type === 'array_relation') {
      const key = o.type === 'object_relation' ? 'object_relationships' : 'array_relationships';
      table[key] = (table[key] ?? []).filter((r) => r.name !== def['name']);
    } else if (o.type in PERMISSION_KEYS) {
      const key = PERMISSION_KEYS[o.type]!;
      const kept = ((table[key] ?? []) as Array<{ role: string }>).filter((p) => p.role !== def['role']);
      // The export leaves empty permission lists out.
      if (kept.length > 0) (table as unknown as Record<string, unknown>)[key] = kept;
      else delete table[key];
    } else if (o.type === 'computed_field') {
      table.computed_fields = (table.computed_fields ?? []).filter((c) => c.name !== def['name']);
    } else if (o.type === 'event_trigger') {
      table.event_triggers = (table.event_triggers ?? []).filter((e) => e['name'] !== def['name']);
    }
  }
}
