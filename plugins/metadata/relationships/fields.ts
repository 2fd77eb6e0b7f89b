/**
 * The field names a table already has (columns, relationships, computed fields, remote
 * relationships), which a new relationship name must not reuse.
 */
import type { DatabaseCatalog, RelationshipKind, RelationshipMetadata, TableMetadata } from '../../../core/sdk/index.js';

export function columnNames(meta: TableMetadata, catalog: DatabaseCatalog | undefined): Set<string> {
  const entry = catalog?.tables.find((t) => t.schema === meta.table.schema && t.name === meta.table.name);
  return new Set(entry?.columns.map((c) => c.name) ?? []);
}

export function fieldNames(meta: TableMetadata, catalog: DatabaseCatalog | undefined): Set<string> {
  const names = columnNames(meta, catalog);
  for (const r of [...(meta.object_relationships ?? []), ...(meta.array_relationships ?? [])]) names.add(r.name);
  for (const c of meta.computed_fields ?? []) names.add(c.name);
  for (const r of meta.remote_relationships ?? []) names.add(String(r.name));
  return names;
}

export function findRelationship(meta: TableMetadata, name: string): { kind: RelationshipKind; rel: RelationshipMetadata } | undefined {
  const object = meta.object_relationships?.find((r) => r.name === name);
  if (object) return { kind: 'object', rel: object };
  const array = meta.array_relationships?.find((r) => r.name === name);
  return array ? { kind: 'array', rel: array } : undefined;
}

export const listKey = (kind: RelationshipKind): 'object_relationships' | 'array_relationships' =>
  kind === 'object' ? 'object_relationships' : 'array_relationships';
