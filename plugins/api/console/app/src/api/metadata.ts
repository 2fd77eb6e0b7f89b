/**
 * The exported metadata document as the console reads it (version 3 export), typed loosely:
 * the console shows and edits what the engine accepts and leaves validation to the engine.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface QualifiedName {
  schema: string;
  name: string;
}

export interface PermissionEntry {
  role: string;
  permission: JsonObject;
  comment?: string | null;
}

export interface RelationshipEntry {
  name: string;
  using: JsonObject;
  comment?: string | null;
}

export interface TableEntry {
  table: QualifiedName;
  configuration?: {
    custom_name?: string;
    custom_root_fields?: Record<string, string | { name?: string } | null>;
    column_config?: Record<string, { custom_name?: string }>;
  };
  is_enum?: boolean;
  object_relationships?: RelationshipEntry[];
  array_relationships?: RelationshipEntry[];
  insert_permissions?: PermissionEntry[];
  select_permissions?: PermissionEntry[];
  update_permissions?: PermissionEntry[];
  delete_permissions?: PermissionEntry[];
  event_triggers?: JsonObject[];
  computed_fields?: JsonObject[];
  remote_relationships?: JsonObject[];
}

export interface FunctionEntry {
  function: QualifiedName;
  configuration?: JsonObject;
  permissions?: { role: string }[];
}

export interface SourceEntry {
  name: string;
  kind: string;
  tables: TableEntry[];
  functions?: FunctionEntry[];
  configuration: JsonObject;
  customization?: {
    root_fields?: { namespace?: string; prefix?: string; suffix?: string };
    naming_convention?: string;
  };
}

export interface MetadataDocument {
  version: number;
  sources: SourceEntry[];
  remote_schemas?: JsonObject[];
  actions?: JsonObject[];
  custom_types?: JsonObject;
  query_collections?: JsonObject[];
  allowlist?: JsonObject[];
  rest_endpoints?: JsonObject[];
  cron_triggers?: JsonObject[];
  api_limits?: JsonObject;
  inherited_roles?: JsonObject[];
  [key: string]: unknown;
}

export interface InconsistentObject {
  type: string;
  name?: string;
  reason: string;
  definition?: unknown;
}

export const PERMISSION_TYPES = ['insert', 'select', 'update', 'delete'] as const;
export type PermissionType = (typeof PERMISSION_TYPES)[number];

/** Operation prefix of a source kind (`postgres` → `pg`), as in Document 1 §4. */
export function kindPrefix(kind: string): string {
  switch (kind) {
    case 'postgres':
    case 'pg':
      return 'pg';
    case 'citus':
    case 'dist':
      return 'dist';
    case 'mssql':
    case 'sqlb':
      return 'sqlb';
    case 'bigquery':
    case 'wh':
      return 'wh';
    default:
      return kind;
  }
}

/** The warehouse kind exports its tables as `{dataset, name}`: the console reads the dataset as the schema. */
export function withTableSchemas(md: MetadataDocument): MetadataDocument {
  const schemaOf = (t: QualifiedName & { dataset?: string }): QualifiedName => (t.schema === undefined && t.dataset !== undefined ? { schema: t.dataset, name: t.name } : t);
  return { ...md, sources: md.sources.map((s) => ({ ...s, tables: s.tables.map((t) => ({ ...t, table: schemaOf(t.table) })) })) };
}

export const tableLabel = (t: QualifiedName): string => (t.schema === 'public' ? t.name : `${t.schema}.${t.name}`);
export const sameTable = (a: QualifiedName, b: QualifiedName): boolean => a.schema === b.schema && a.name === b.name;

export function findTable(md: MetadataDocument | null, source: string, table: QualifiedName): TableEntry | undefined {
  return md?.sources.find((s) => s.name === source)?.tables.find((t) => sameTable(t.table, table));
}

/** Every role named anywhere in table or function permissions, plus admin. */
export function rolesOf(md: MetadataDocument | null): string[] {
  const roles = new Set<string>(['admin']);
  for (const source of md?.sources ?? []) {
    for (const t of source.tables) {
      for (const type of PERMISSION_TYPES) for (const p of t[`${type}_permissions`] ?? []) roles.add(p.role);
    }
    for (const f of source.functions ?? []) for (const p of f.permissions ?? []) roles.add(p.role);
  }
  for (const a of md?.actions ?? []) {
    const perms = (a['permissions'] as { role: string }[] | undefined) ?? [];
    for (const p of perms) roles.add(p.role);
  }
  return [...roles];
}
