/**
 * How generated GraphQL names are derived from a table's identifier: the default root-field
 * patterns, the source's `naming_convention`, and the source-wide prefix/suffix customizations.
 */
import type { CustomRootFields, QualifiedTable, SourceCustomization } from '../../metadata/types.js';
import type { TableRootFieldNames } from '../model.js';

export type NamingConvention = 'hasura-default' | 'graphql-default';

/** `graphql-default` asks for camelCase fields and PascalCase types; anything else keeps snake_case. */
export function namingConventionOf(customization: SourceCustomization | undefined): NamingConvention {
  return customization?.naming_convention === 'graphql-default' ? 'graphql-default' : 'hasura-default';
}

const pieces = (s: string): string[] => s.split('_').filter((p) => p.length > 0);
const upperFirst = (s: string): string => (s.length ? s[0]!.toUpperCase() + s.slice(1) : s);

/** `author_details` → `authorDetails`; a leading underscore is kept so `_private` stays valid. */
export function toCamelCase(name: string): string {
  const parts = pieces(name);
  if (parts.length === 0) return name;
  const lead = name.startsWith('_') ? '_' : '';
  return lead + parts[0] + parts.slice(1).map(upperFirst).join('');
}

export function toPascalCase(name: string): string {
  const parts = pieces(name);
  if (parts.length === 0) return name;
  return parts.map(upperFirst).join('');
}

/** The identifier of a table when its configuration names none: `schema_name` outside `public`. */
export function defaultIdentifier(table: QualifiedTable): string {
  return table.schema === 'public' ? table.name : `${table.schema}_${table.name}`;
}

const ROOT_FIELD_PATTERNS: Record<keyof TableRootFieldNames, (id: string) => string> = {
  select: (id) => id,
  select_by_pk: (id) => `${id}_by_pk`,
  select_aggregate: (id) => `${id}_aggregate`,
  select_stream: (id) => `${id}_stream`,
  insert: (id) => `insert_${id}`,
  insert_one: (id) => `insert_${id}_one`,
  update: (id) => `update_${id}`,
  update_by_pk: (id) => `update_${id}_by_pk`,
  update_many: (id) => `update_${id}_many`,
  delete: (id) => `delete_${id}`,
  delete_by_pk: (id) => `delete_${id}_by_pk`,
};

export const ROOT_FIELD_KINDS = Object.keys(ROOT_FIELD_PATTERNS) as Array<keyof TableRootFieldNames>;

/**
 * Joins a prefix/suffix onto a name. Under graphql-default the affixes become camelCase pieces
 * (`my_` + `authorByPk` → `myAuthorByPk`), so the result stays in one case style.
 */
export function withAffixes(name: string, prefix: string | undefined, suffix: string | undefined, naming: NamingConvention): string {
  if (naming === 'hasura-default') return `${prefix ?? ''}${name}${suffix ?? ''}`;
  const parts = [prefix, name, suffix].filter((p): p is string => !!p && pieces(p).length > 0);
  if (parts.length === 0) return name;
  const [first, ...rest] = parts;
  return pieces(first!).join('_') + rest.map((p) => pieces(p).map(upperFirst).join('')).join('');
}

/** A custom root field is a name, or (newer exports) `{name, comment}`; null/empty means default. */
export function customRootFieldName(value: unknown): string | undefined {
  if (typeof value === 'string') return value || undefined;
  if (typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string') {
    return (value as { name: string }).name || undefined;
  }
  return undefined;
}

/**
 * Root field names of a table: a custom name wins (used verbatim), else the default pattern in the
 * source's naming convention; the source's root-field prefix/suffix applies to both.
 */
export function rootFieldNames(
  identifier: string,
  custom: CustomRootFields | undefined,
  customization: SourceCustomization | undefined,
  naming: NamingConvention,
): TableRootFieldNames {
  const prefix = customization?.root_fields?.prefix;
  const suffix = customization?.root_fields?.suffix;
  const out = {} as TableRootFieldNames;
  for (const kind of ROOT_FIELD_KINDS) {
    const given = customRootFieldName(custom?.[kind]);
    const generated = ROOT_FIELD_PATTERNS[kind](identifier);
    const base = given ?? (naming === 'graphql-default' ? toCamelCase(generated) : generated);
    out[kind] = withAffixes(base, prefix, suffix, naming);
  }
  return out;
}

/** The object type name of a table, with the source's type-name prefix/suffix. */
export function tableTypeName(identifier: string, customization: SourceCustomization | undefined, naming: NamingConvention): string {
  const base = naming === 'graphql-default' ? toPascalCase(identifier) : identifier;
  const prefix = customization?.type_names?.prefix ?? '';
  const suffix = customization?.type_names?.suffix ?? '';
  return `${prefix}${base}${suffix}`;
}

/** A column's GraphQL field name: its custom name, else the column name in the naming convention. */
export function columnFieldName(column: string, customName: string | undefined, naming: NamingConvention): string {
  if (customName) return customName;
  return naming === 'graphql-default' ? toCamelCase(column) : column;
}
