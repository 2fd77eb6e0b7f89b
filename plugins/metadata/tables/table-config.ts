/**
 * Parses a TableConfig (Document 1 §2.4) with the reference's rules: custom names must be GraphQL
 * names and custom root field names must not repeat. The parsed value is what metadata stores.
 */
import {
  type ArgsObject,
  type ColumnConfig,
  customRootFieldName,
  type CustomRootFields,
  englishList,
  expectObject,
  isGraphQLName,
  jsonTypeName,
  parseFailed,
  ROOT_FIELD_KINDS,
  type TableConfiguration,
} from '../../../core/sdk/index.js';

function graphqlName(value: unknown, path: string): string {
  if (typeof value !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(value)}`, path);
  if (!isGraphQLName(value)) throw parseFailed(`"${value}" is not a valid GraphQL name`, path);
  return value;
}

function optionalText(o: ArgsObject, key: string, path: string): string | null | undefined {
  const v = o[key];
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function parseRootFields(value: unknown, path: string): CustomRootFields {
  const o = expectObject(value, path);
  const out: Record<string, unknown> = {};
  for (const kind of ROOT_FIELD_KINDS) {
    const v = o[kind];
    if (v === undefined) continue;
    if (v === null) out[kind] = null;
    else if (typeof v === 'object' && !Array.isArray(v)) {
      const f = v as ArgsObject;
      if (f.name !== undefined && f.name !== null) graphqlName(f.name, `${path}.${kind}.name`);
      optionalText(f, 'comment', `${path}.${kind}`);
      out[kind] = v;
    } else out[kind] = graphqlName(v, `${path}.${kind}`);
  }
  const names = ROOT_FIELD_KINDS.map((k) => customRootFieldName(out[k])).filter((n): n is string => !!n);
  const duplicated = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  if (duplicated.length) {
    throw parseFailed(`the following custom root field names are duplicated: ${englishList(duplicated.map((d) => `"${d}"`))}`, path);
  }
  return out as CustomRootFields;
}

function parseColumnConfig(value: unknown, path: string): Record<string, ColumnConfig> {
  const o = expectObject(value, path);
  const out: Record<string, ColumnConfig> = {};
  for (const [column, cfg] of Object.entries(o)) {
    const c = expectObject(cfg, `${path}.${column}`);
    const entry: ColumnConfig = {};
    if (c.custom_name !== undefined && c.custom_name !== null) entry.custom_name = graphqlName(c.custom_name, `${path}.${column}.custom_name`);
    const comment = optionalText(c, 'comment', `${path}.${column}`);
    if (typeof comment === 'string') entry.comment = comment;
    out[column] = entry;
  }
  return out;
}

function parseColumnNames(value: unknown, path: string): Record<string, string> {
  const o = expectObject(value, path);
  const out: Record<string, string> = {};
  for (const [column, name] of Object.entries(o)) out[column] = graphqlName(name, `${path}.${column}`);
  return out;
}

/** Parses `configuration`; absent or null is the empty configuration. */
export function parseTableConfiguration(value: unknown, path: string): TableConfiguration {
  if (value === undefined || value === null) return {};
  const o = expectObject(value, path);
  const out: TableConfiguration = {};
  if (o.custom_name !== undefined && o.custom_name !== null) out.custom_name = graphqlName(o.custom_name, `${path}.custom_name`);
  if (o.identifier !== undefined && o.identifier !== null) out.identifier = graphqlName(o.identifier, `${path}.identifier`);
  if (o.custom_root_fields !== undefined && o.custom_root_fields !== null) {
    out.custom_root_fields = parseRootFields(o.custom_root_fields, `${path}.custom_root_fields`);
  }
  if (o.column_config !== undefined && o.column_config !== null) out.column_config = parseColumnConfig(o.column_config, `${path}.column_config`);
  if (o.custom_column_names !== undefined && o.custom_column_names !== null) {
    out.custom_column_names = parseColumnNames(o.custom_column_names, `${path}.custom_column_names`);
  }
  const comment = optionalText(o, 'comment', path);
  if (typeof comment === 'string') out.comment = comment;
  return out;
}

/** Drops empty parts so an empty configuration is stored as no configuration. */
export function isEmptyConfiguration(c: TableConfiguration): boolean {
  return Object.keys(c).length === 0;
}
