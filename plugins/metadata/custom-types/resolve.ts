/**
 * Custom types checked against each other and the sources, once per schema-cache snapshot, with
 * the reference's messages ("validation for the given custom types failed because ..."): unique
 * type names that do not clash with the tables' types, fields of known types (objects may nest
 * objects; input objects take scalars, enums and input objects), object fields without
 * arguments, relationships to tracked tables through scalar fields and existing columns. Invalid
 * custom types are one inconsistent object `custom_types`, and then none of them exist (the
 * actions using them become inconsistent too).
 */
import {
  perSnapshot,
  qualifiedTableName,
  tableKey,
  type InconsistentObject,
  type ResolvedTable,
  type SchemaCache,
} from '../../../core/sdk/index.js';
import { getNamedTypeName, isListTypeNode } from './type-node.js';
import { parseCustomTypes, type CustomTypesDefinition, type FieldDefinition, type ObjectRelationshipDefinition } from './parse.js';
import { parseType, type TypeNode } from 'graphql';

export const BUILT_IN_SCALARS: ReadonlySet<string> = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

/** Database scalars a custom type may name without declaring them (as the reference's lookupPGScalar). */
export const DATABASE_SCALARS: ReadonlySet<string> = new Set([
  'uuid', 'json', 'jsonb', 'timestamptz', 'timestamp', 'timetz', 'time', 'date', 'interval', 'numeric', 'bigint', 'smallint',
  'float8', 'bpchar', 'citext', 'money', 'bytea', 'inet', 'ltree',
]);

export interface ResolvedField {
  name: string;
  type: TypeNode;
  description?: string;
}

export interface ResolvedObjectRelationship {
  name: string;
  kind: 'object' | 'array';
  source: string;
  table: ResolvedTable;
  /** Pairs of (output field, target column). */
  mapping: Array<[string, string]>;
}

export interface ResolvedObjectType {
  name: string;
  description?: string;
  fields: ResolvedField[];
  relationships: ResolvedObjectRelationship[];
}

export interface ResolvedCustomTypes {
  definition: CustomTypesDefinition;
  scalars: Map<string, { name: string; description?: string }>;
  enums: Map<string, NonNullable<CustomTypesDefinition['enums']>[number]>;
  inputObjects: Map<string, { name: string; description?: string; fields: ResolvedField[] }>;
  objects: Map<string, ResolvedObjectType>;
  problems: InconsistentObject[];
}

const quoted = (names: Iterable<string>): string => [...names].map((n) => `"${n}"`).join(', ');

function duplicates(names: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return [...dup];
}

const field = (f: FieldDefinition, type: TypeNode): ResolvedField => ({ name: f.name, type, ...(f.description !== undefined ? { description: f.description } : {}) });

export function emptyCustomTypes(): ResolvedCustomTypes {
  return { definition: {}, scalars: new Map(), enums: new Map(), inputObjects: new Map(), objects: new Map(), problems: [] };
}

export function resolveCustomTypes(raw: unknown, cache: Pick<SchemaCache, 'sources'>): ResolvedCustomTypes {
  let def: CustomTypesDefinition;
  const fail = (reasons: string[]): ResolvedCustomTypes => {
    const reason =
      'validation for the given custom types failed ' +
      (reasons.length === 1 ? `because ${reasons[0]}` : `for the following reasons:\n${reasons.map((r) => `  • ${r}\n`).join('')}`);
    return { ...emptyCustomTypes(), problems: [{ type: 'custom_types', name: 'custom_types', definition: raw ?? {}, reason: `Inconsistent object: ${reason}` }] };
  };
  try {
    def = parseCustomTypes(raw ?? {}, '$');
  } catch (e) {
    return fail([(e as Error).message]);
  }
  const errors: string[] = [];
  const scalars = new Map((def.scalars ?? []).map((s) => [s.name, s] as const));
  const enums = new Map((def.enums ?? []).map((e) => [e.name, e] as const));
  const inputNames = new Set((def.input_objects ?? []).map((t) => t.name));
  const objectNames = new Set((def.objects ?? []).map((t) => t.name));
  const all = [...scalars.keys(), ...enums.keys(), ...inputNames, ...objectNames];
  const dup = duplicates([...(def.scalars ?? []), ...(def.enums ?? []), ...(def.input_objects ?? []), ...(def.objects ?? [])].map((t) => t.name));
  if (dup.length > 0) errors.push(`duplicate type names: ${quoted(dup)}`);
  const tableTypes = new Set<string>();
  for (const s of cache.sources.values()) for (const t of s.tables.values()) tableTypes.add(t.typeName);
  const clashing = all.filter((n) => tableTypes.has(n));
  if (clashing.length > 0) errors.push(`the type names ${quoted(clashing)} are already used by tracked tables`);

  const isScalar = (n: string) => BUILT_IN_SCALARS.has(n) || DATABASE_SCALARS.has(n) || scalars.has(n);
  for (const e of def.enums ?? []) {
    const d = duplicates(e.values.map((v) => v.value));
    if (d.length > 0) errors.push(`the enum type "${e.name}" has duplicate values: ${quoted(d)}`);
  }
  const inputObjects = new Map<string, { name: string; description?: string; fields: ResolvedField[] }>();
  for (const t of def.input_objects ?? []) {
    const d = duplicates(t.fields.map((f) => f.name));
    if (d.length > 0) errors.push(`the input object "${t.name}" has duplicate fields: ${quoted(d)}`);
    const fields = t.fields.map((f) => {
      const type = parseTypeOf(f);
      const base = getNamedTypeName(type);
      if (!(isScalar(base) || enums.has(base) || inputNames.has(base))) {
        errors.push(`the type "${base}" for field "${f.name}" in  input object type "${t.name}" does not exist`);
      }
      return field(f, type);
    });
    inputObjects.set(t.name, { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), fields });
  }
  const objects = new Map<string, ResolvedObjectType>();
  for (const t of def.objects ?? []) {
    const rels = t.relationships ?? [];
    const d = duplicates([...t.fields.map((f) => f.name), ...rels.map((r) => r.name)]);
    if (d.length > 0) errors.push(`the object "${t.name}" has duplicate fields: ${quoted(d)}`);
    const scalarFields = new Set<string>();
    const fields = t.fields.map((f) => {
      const type = parseTypeOf(f);
      const base = getNamedTypeName(type);
      if (f.arguments !== undefined && f.arguments !== null) errors.push(`the object "${t.name}" can't have arguments`);
      if (!(isScalar(base) || enums.has(base) || objectNames.has(base))) {
        errors.push(`the type "${base}" for field "${f.name}" in  object type "${t.name}" does not exist`);
      }
      if (!isListTypeNode(type) && isScalar(base)) scalarFields.add(f.name);
      return field(f, type);
    });
    const relationships = rels.flatMap((r) => resolveRelationship(t.name, r, scalarFields, cache, errors));
    objects.set(t.name, { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), fields, relationships });
  }
  if (errors.length > 0) return fail(errors);
  return { definition: def, scalars, enums, inputObjects, objects, problems: [] };
}

/** Already checked to parse by parseCustomTypes. */
const parseTypeOf = (f: FieldDefinition): TypeNode => parseType(f.type);

function resolveRelationship(
  objectName: string,
  r: ObjectRelationshipDefinition,
  scalarFields: ReadonlySet<string>,
  cache: Pick<SchemaCache, 'sources'>,
  errors: string[],
): ResolvedObjectRelationship[] {
  const source = r.source ?? 'default';
  const table = cache.sources.get(source)?.tables.get(tableKey(r.remote_table));
  if (!table) {
    errors.push(`the remote table "${qualifiedTableName(r.remote_table)}" for relationship "${r.name}" of object type "${objectName}" does not exist`);
    return [];
  }
  let ok = true;
  for (const [f, column] of Object.entries(r.field_mapping)) {
    if (!scalarFields.has(f)) {
      errors.push(`the field "${f}" for relationship "${r.name}" in object type "${objectName}" does not exist`);
      ok = false;
    }
    if (!table.columnsByName.has(column)) {
      errors.push(`the column "${column}" of remote table "${qualifiedTableName(r.remote_table)}" for relationship "${r.name}" of object type "${objectName}" does not exist`);
      ok = false;
    }
  }
  return ok ? [{ name: r.name, kind: r.type, source, table, mapping: Object.entries(r.field_mapping) }] : [];
}

/** The custom types of a snapshot, resolved on first use. */
export const customTypesOf = perSnapshot((cache: SchemaCache) => resolveCustomTypes(cache.metadata.custom_types, cache));
