/**
 * `order_by` of a legacy select: `"+name"`, `"-id"`, `"author.name"` (through object
 * relationships), `{column, type: asc|desc, nulls: first|last}`, or a list of those. Each
 * column must be selectable by the role; each relationship crossed applies its table's filter.
 */
import {
  EngineError,
  fieldKind,
  isPlainObject,
  jsonTypeName,
  type OrderByIR,
  type OrderExprIR,
  parseFailed,
} from '../../../core/sdk/index.js';
import { checkColumn, relationshipAccess, type Access, type DmlContext, visibleColumn } from './target.js';

export interface OrderByItem {
  /** Field names: relationships, then a column. */
  column: string[];
  type: 'asc' | 'desc' | null;
  nulls: 'first' | 'last' | null;
}

export function parseOrderBy(value: unknown, path: string): OrderByItem[] {
  if (typeof value === 'string') return [parseString(value, path)];
  if (isPlainObject(value)) return [parseObject(value, path)];
  if (!Array.isArray(value)) throw parseFailed('Expecting : array/string/object', path);
  return value.map((item, i) => {
    const at = `${path}[${i}]`;
    if (typeof item === 'string') return parseString(item, at);
    if (isPlainObject(item)) return parseObject(item, at);
    throw parseFailed('expecting an object or string for order by', at);
  });
}

function parseString(s: string, path: string): OrderByItem {
  const type = s.startsWith('+') ? 'asc' : s.startsWith('-') ? 'desc' : null;
  const text = type === null ? s : s.slice(1);
  if (text === '') throw parseFailed("string format for 'order_by' entry : {+/-}column Eg : +posted", path);
  return { column: text.split('.'), type, nulls: null };
}

function oneOf<T extends string>(o: Record<string, unknown>, key: string, allowed: readonly T[], path: string): T | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw parseFailed(`expected one of ${allowed.map((a) => `"${a}"`).join(', ')}, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
}

function parseObject(o: Record<string, unknown>, path: string): OrderByItem {
  const c = o['column'];
  if (c === undefined) throw parseFailed('key "column" not found', path);
  let column: string[];
  if (typeof c === 'string') column = c.split('.');
  else if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) column = c as string[];
  else throw parseFailed(`expected String, but encountered ${jsonTypeName(c)}`, `${path}.column`);
  return { column, type: oneOf(o, 'type', ['asc', 'desc'] as const, path), nulls: oneOf(o, 'nulls', ['first', 'last'] as const, path) };
}

export function buildOrderBy(dc: DmlContext, access: Access, items: OrderByItem[], path: string): OrderByIR[] {
  return items.map((item, i): OrderByIR => {
    const direction = item.type ?? 'asc';
    // PostgreSQL's own defaults when `nulls` is absent: last ascending, first descending.
    const nulls = item.nulls ?? (direction === 'asc' ? 'last' : 'first');
    return { expr: orderExpr(dc, access, item.column, `${path}[${i}]`), direction, nulls };
  });
}

function orderExpr(dc: DmlContext, access: Access, names: string[], path: string): OrderExprIR {
  const [name, ...rest] = names as [string, ...string[]];
  const table = access.table;
  const kind = fieldKind(table, name);
  const payload = (message: string) => new EngineError('unexpected-payload', `"${name}" ${message}`, { path });
  switch (kind) {
    case undefined:
      throw new EngineError('not-exists', `"${name}" does not exist`, { path });
    case 'column': {
      if (rest.length > 0) throw payload('is a Postgres column and cannot be chained further');
      checkColumn(dc, access, 'select', name, path);
      return visibleColumn(access, { kind: 'column' as const, name, type: table.columnsByName.get(name)!.type });
    }
    case 'relationship': {
      const rel = table.relationships.get(name)!;
      if (rest.length === 0) throw payload('is a relationship and should be expanded');
      if (rel.kind === 'array') throw payload("is an array relationship and can't be used in 'order_by'");
      const target = relationshipAccess(dc, table, name, path);
      return { kind: 'objectRelationship', target: target.ref, mapping: rel.mapping, filter: target.filter, expr: orderExpr(dc, target, rest, path) };
    }
    case 'computed field':
      throw payload("is a computed field and can't be used in 'order_by'");
    case 'remote relationship':
      throw payload('is a remote field');
  }
}
