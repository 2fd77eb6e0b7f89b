/**
 * The legacy `select`: `{table, columns, where, order_by, limit, offset}` → a list select of the
 * query IR. `columns` holds column names, wildcards (`*` every column the role may select,
 * `*.*` also every relationship it may follow, one level per `.*`) and relationship selections
 * `{name, alias, columns, where, order_by, limit, offset}`, nested to any depth. The answer is
 * the JSON array of rows.
 */
import {
  type ArgsObject,
  EngineError,
  type FieldIR,
  fieldKind,
  isPlainObject,
  jsonTypeName,
  optionalString,
  parseFailed,
  requireKey,
  requireTable,
  type RootFieldIR,
  type SelectIR,
  type TypedValueIR,
} from '../../../core/sdk/index.js';
import { buildOrderBy, parseOrderBy, type OrderByItem } from './order-by.js';
import { DECODE, keyPath, optionalInt } from './parse.js';
import { accessOf, ARGS, checkColumn, relationshipAccess, requireAccess, requireColumn, requireTable as tableOf, type Access, type DmlContext, visibleColumn } from './target.js';
import { buildLegacyWhere } from './where.js';

type ColumnSpec =
  | { kind: 'star'; depth: number }
  | { kind: 'column'; name: string }
  | { kind: 'relationship'; name: string; alias: string | null; select: SelectSpec };

interface SelectSpec {
  columns: ColumnSpec[];
  where: unknown;
  orderBy: OrderByItem[] | null;
  limit: number | null;
  offset: number | null;
}

const WILDCARD = /^\*(\.\*)*$/;

function parseSelect(args: ArgsObject, base: string): SelectSpec {
  const columns = requireKey(args, 'columns', base);
  if (!Array.isArray(columns)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(columns)}`, keyPath(base, 'columns'));
  const orderBy = args['order_by'];
  return {
    columns: columns.map((c, i) => parseColumn(c, `${base}.columns[${i}]`)),
    where: args['where'] ?? null,
    orderBy: orderBy === undefined || orderBy === null ? null : parseOrderBy(orderBy, keyPath(base, 'order_by')),
    limit: optionalInt(args, 'limit', base),
    offset: optionalInt(args, 'offset', base),
  };
}

function parseColumn(value: unknown, path: string): ColumnSpec {
  if (typeof value === 'string') {
    return WILDCARD.test(value) ? { kind: 'star', depth: value.split('.').length - 1 } : { kind: 'column', name: value };
  }
  if (isPlainObject(value)) {
    requireKey(value, 'name', path);
    const name = value['name'];
    if (typeof name !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(name)}`, `${path}.name`);
    return { kind: 'relationship', name, alias: optionalString(value, 'alias', path) ?? null, select: parseSelect(value, path) };
  }
  throw parseFailed('A column should either be a string or an object (relationship)', path);
}

const paging = (n: number | null, dbType: string, path: string): TypedValueIR | null => {
  if (n === null) return null;
  if (n < 0) throw new EngineError('not-supported', 'unexpected negative value', { path });
  return { value: { kind: 'const', value: n }, dbType };
};

function buildSelect(dc: DmlContext, access: Access, spec: SelectSpec, path: string): SelectIR {
  const fields = buildFields(dc, access, spec.columns, path);
  const where = spec.where === null ? null : buildLegacyWhere(dc, access, spec.where, `${path}.where`);
  return {
    from: access.ref,
    where,
    permissionFilter: access.filter,
    orderBy: spec.orderBy ? buildOrderBy(dc, access, spec.orderBy, `${path}.order_by`) : [],
    distinctOn: [],
    limit: paging(spec.limit, 'int4', `${path}.limit`),
    offset: paging(spec.offset, 'int8', `${path}.offset`),
    permissionLimit: access.limit,
    fields,
  };
}

/** Listed columns first, then what the widest wildcard adds (the reference's `unionBy`). */
function buildFields(dc: DmlContext, access: Access, columns: ColumnSpec[], path: string): FieldIR[] {
  const fields: FieldIR[] = [];
  // Columns and relationships by name (not alias), to leave out what a wildcard repeats.
  const named = new Set<string>();
  columns.forEach((c, i) => {
    if (c.kind === 'star') return;
    fields.push(explicitField(dc, access, c, `${path}.columns[${i}]`));
    named.add(`${c.kind}:${c.name}`);
  });
  const depth = Math.max(-1, ...columns.map((c) => (c.kind === 'star' ? c.depth : -1)));
  if (depth < 0) return fields;
  for (const [key, f] of wildcardFields(dc, access, depth)) if (!named.has(key)) fields.push(f);
  return fields;
}

function explicitField(dc: DmlContext, access: Access, c: Exclude<ColumnSpec, { kind: 'star' }>, path: string): FieldIR {
  const table = access.table;
  if (c.kind === 'column') {
    checkColumn(dc, access, 'select', c.name, path);
    requireColumn(table, c.name, 'relationships have to be expanded', path);
    return visibleColumn(access, { kind: 'column' as const, alias: c.name, name: c.name, type: table.columnsByName.get(c.name)!.type });
  }
  const kind = fieldKind(table, c.name);
  if (kind === undefined) throw new EngineError('not-exists', `relationship "${c.name}" does not exist`, { path: `${path}.name` });
  if (kind !== 'relationship') {
    const message = `expecting a relationship; but, "${c.name}" is a postgres column; only relationships can be expanded`;
    throw new EngineError('unexpected-payload', message, { path: `${path}.name` });
  }
  const rel = table.relationships.get(c.name)!;
  const target = relationshipAccess(dc, table, c.name, path);
  const s = c.select;
  if (rel.kind === 'object' && (s.where !== null || s.orderBy !== null || s.limit !== null || s.offset !== null)) {
    const message = "when selecting an 'obj_relationship' 'where', 'order_by', 'limit' and 'offset'  can't be used";
    throw new EngineError('unexpected-payload', message, { path });
  }
  const select = buildSelect(dc, target, s, path);
  const alias = c.alias ?? c.name;
  return rel.kind === 'object'
    ? { kind: 'objectRelationship', alias, mapping: rel.mapping, select }
    : { kind: 'arrayRelationship', alias, mapping: rel.mapping, select };
}

/** `*`: the permitted columns in table order; each `.*` adds the relationships the role may follow. */
function wildcardFields(dc: DmlContext, access: Access, depth: number): Array<[string, FieldIR]> {
  const table = access.table;
  const fields: Array<[string, FieldIR]> = table.columns
    .filter((c) => access.columns.has(c.name))
    .map((c) => [`column:${c.name}`, visibleColumn(access, { kind: 'column' as const, alias: c.name, name: c.name, type: c.type })]);
  if (depth === 0) return fields;
  for (const rel of table.relationships.values()) {
    const targetTable = dc.source.tables.get(rel.target);
    const target = targetTable ? accessOf(dc, targetTable, 'select') : null;
    if (!target) continue;
    const select: SelectIR = {
      from: target.ref,
      where: null,
      permissionFilter: target.filter,
      orderBy: [],
      distinctOn: [],
      limit: null,
      offset: null,
      permissionLimit: target.limit,
      fields: wildcardFields(dc, target, depth - 1).map(([, f]) => f),
    };
    const kind = rel.kind === 'object' ? 'objectRelationship' : 'arrayRelationship';
    fields.push([`relationship:${rel.name}`, { kind, alias: rel.name, mapping: rel.mapping, select }]);
  }
  return fields;
}

export function selectIR(dc: DmlContext, args: ArgsObject): RootFieldIR {
  const table = requireTable(args, 'table', DECODE);
  const spec = parseSelect(args, DECODE);
  const access = requireAccess(dc, tableOf(dc, table, `${ARGS}.table`), 'select', ARGS);
  return { kind: 'select', source: dc.source.name, select: buildSelect(dc, access, spec, ARGS), single: false };
}
