/**
 * The base select of one level: the rows of a table after filters, DISTINCT ON, ordering and
 * paging, before any JSON is built, so the database limits rows before it does per-row work.
 *
 *   (SELECT [DISTINCT ON (..)] <needed columns>, <sort keys> FROM "s"."t" AS "_n"
 *    WHERE <join> AND <permission> AND <where> [ORDER BY ..] [LIMIT ..] [OFFSET ..]) AS "_n"
 *
 * Only the columns the level reads are projected. ORDER BY appears here only when paging or
 * DISTINCT ON needs it: a sub-select without ORDER BY/LIMIT is pulled up by the planner, so an
 * unpaged level costs nothing extra; the order of the JSON array is set by the aggregate.
 */
import { errors, type SelectFromIR, type TypedValueIR } from '../../../../core/sdk/index.js';
import { andSql, boolExpSql, joinSql, visibleWhenSql } from './bool-exp.js';
import type { CompileContext, SqlParam } from './context.js';
import { directionSql, orderExprSql } from './order-by.js';
import { quoteIdent, quoteTable } from './quote.js';
import { valueSql } from './values.js';
import { callSql, ROW_KEY } from './function-call.js';

/** How a level hangs off its parent: parent alias and (parent column, this column) pairs. */
export interface JoinSpec {
  parent: string;
  mapping: Array<[string, string]>;
}

export interface BaseOptions {
  /** Object relationships: at most one row, whatever the IR's paging says. */
  singleRow?: boolean;
  /** Whether the caller orders outside (json_agg ORDER BY), so sort keys must be projected. */
  exposeOrder: boolean;
  /** Read rows from this FROM source instead of `sel.from` (a mutation's result CTE). */
  fromSql?: string;
  /** Also project the whole row as ROW_KEY, for computed fields called with it. */
  wholeRow?: boolean;
  /** One more condition over the level's alias (a stream's cursor). */
  extraWhere?: (alias: string) => string;
  /** The limit keeps rows tying with the last one (streams: a cursor value is never split). */
  withTies?: boolean;
  /** The row cap as SQL, in place of the IR's limits (relay: the page size plus one). */
  limitSql?: string;
}

export interface BaseSelect {
  /** The FROM item: `(SELECT ...) AS "_n"`. */
  from: string;
  /** ` ORDER BY ...` for the level's json_agg, or '' when unordered. */
  aggOrder: string;
  /** The sort keys as the level reads them over `alias` (DISTINCT ON columns first), without direction. */
  keys: string[];
}

interface SortItem {
  /** The key inside the base select (column or correlated sub-select). */
  expr: string;
  /** A column of the table, projected under its own name; otherwise a computed key. */
  column: string | null;
  dir: string;
}

export function baseSelect(
  ctx: CompileContext,
  sel: SelectFromIR,
  alias: string,
  needed: Set<string>,
  join: JoinSpec | null,
  options: BaseOptions,
): BaseSelect {
  const where = andSql([
    join === null ? 'true' : joinSql(join.mapping, join.parent, alias),
    sel.permissionFilter === null ? 'true' : boolExpSql(ctx, sel.permissionFilter, { cur: alias, root: alias }),
    sel.where === null ? 'true' : boolExpSql(ctx, sel.where, { cur: alias, root: alias }),
    options.extraWhere ? options.extraWhere(alias) : 'true',
  ]);
  const limit = options.singleRow ? '1' : (options.limitSql ?? limitSql(ctx, sel.limit, sel.permissionLimit));
  const offset = options.singleRow || sel.offset === null ? null : pagingSql(ctx, { ...sel.offset, check: 'offset' });
  const paged = limit !== null || offset !== null || sel.distinctOn.length > 0;
  // Built only when used: a key sub-select may hold placeholders, and an unreferenced
  // placeholder has no type the server could infer.
  // Inherited roles' hidden cells: one SQL text per DISTINCT ON column, shared with its sort key.
  const distinct = new Map(
    sel.distinctOn.map((c) => {
      const col = alias + '.' + quoteIdent(c);
      const cond = sel.distinctVisibleWhen?.[c];
      return [c, cond ? visibleWhenSql(ctx, cond, alias, col) : col] as const;
    }),
  );
  const sorts = paged || options.exposeOrder ? sortItems(ctx, sel, alias, distinct) : [];
  const sortHere = paged && sorts.length > 0;

  // Sort keys that are not plain columns get projected names that no real column can shadow.
  if (options.exposeOrder) for (const s of sorts) if (s.column !== null) needed.add(s.column);
  let keyPrefix = '_svc_k';
  while ([...needed].some((c) => c.startsWith(keyPrefix))) keyPrefix = '_' + keyPrefix;

  const list: string[] = [];
  for (const c of needed) list.push(alias + '.' + quoteIdent(c));
  // A CTE's row is an anonymous record, which a function taking the table's row type refuses.
  if (options.wholeRow) list.push(`${options.fromSql === undefined ? alias : `${alias}::${quoteTable(sel.from)}`} AS ${ROW_KEY}`);
  const inner: string[] = [];
  const outer: string[] = [];
  const keys: string[] = [];
  sorts.forEach((s, i) => {
    if (s.column !== null || !options.exposeOrder) {
      inner.push(s.expr + s.dir);
      outer.push(s.expr + s.dir);
      keys.push(s.expr);
      return;
    }
    const key = quoteIdent(keyPrefix + i);
    list.push(`${s.expr} AS ${key}`);
    inner.push(key + s.dir);
    outer.push(alias + '.' + key + s.dir);
    keys.push(alias + '.' + key);
  });

  // `SELECT DISTINCT ON (..) FROM` is a syntax error; a count(*)-only level still needs a column.
  if (list.length === 0) list.push('1');
  let sql = 'SELECT ';
  if (sel.distinctOn.length > 0) sql += `DISTINCT ON (${[...distinct.values()].join(', ')}) `;
  sql += list.join(', ') + ' FROM ' + fromItem(ctx, sel, join, options) + ' AS ' + alias;
  if (where !== 'true') sql += ' WHERE ' + where;
  if (sortHere) sql += ' ORDER BY ' + inner.join(', ');
  if (limit !== null) sql += options.withTies && sortHere ? ` FETCH FIRST (${limit}) ROWS WITH TIES` : ' LIMIT ' + limit;
  if (offset !== null) sql += ' OFFSET ' + offset;
  return {
    from: `(${sql}) AS ${alias}`,
    aggOrder: options.exposeOrder && outer.length > 0 ? ' ORDER BY ' + outer.join(', ') : '',
    keys,
  };
}

/** The rows' source: the table, a function call (a table computed field's takes the parent's row), or a CTE. */
function fromItem(ctx: CompileContext, sel: SelectFromIR, join: JoinSpec | null, options: BaseOptions): string {
  if (options.fromSql !== undefined) return options.fromSql;
  if (!sel.function) return quoteTable(sel.from);
  return callSql(ctx, sel.function, join === null ? null : `${join.parent}.${ROW_KEY}`);
}

/** DISTINCT ON columns lead, in the user's direction when the user ordered by them too. */
function sortItems(ctx: CompileContext, sel: SelectFromIR, alias: string, distinct: ReadonlyMap<string, string>): SortItem[] {
  const items: SortItem[] = [];
  const used = new Set<number>();
  for (const d of sel.distinctOn) {
    const i = sel.orderBy.findIndex((o) => o.expr.kind === 'column' && o.expr.name === d);
    if (i >= 0) used.add(i);
    const o = i >= 0 ? sel.orderBy[i]! : { direction: 'asc' as const, nulls: 'last' as const };
    const hidden = sel.distinctVisibleWhen?.[d] !== undefined;
    items.push({ expr: distinct.get(d)!, column: hidden ? null : d, dir: directionSql(o) });
  }
  sel.orderBy.forEach((o, i) => {
    if (used.has(i)) return;
    // A hidden cell's key is an expression over several columns: projected like any other key.
    const column = o.expr.kind === 'column' && !o.expr.visibleWhen ? o.expr.name : null;
    items.push({ expr: orderExprSql(ctx, o.expr, alias), column, dir: directionSql(o) });
  });
  return items;
}

/**
 * The row cap: the client's limit, the role's, or the smaller of both (folded when both are
 * known now, LEAST otherwise; LEAST ignores a NULL limit, leaving the role's cap).
 */
function limitSql(ctx: CompileContext, limit: TypedValueIR | null, cap: number | null): string | null {
  if (cap !== null && !(Number.isSafeInteger(cap) && cap >= 0)) {
    throw errors.unexpected('invalid permission limit', { limit: cap });
  }
  if (limit === null) return cap === null ? null : String(cap);
  let p: SqlParam = { ...limit, check: 'limit' };
  if (cap !== null && p.value.kind === 'const' && typeof p.value.value === 'number') {
    p = { ...p, value: { kind: 'const', value: Math.min(p.value.value, cap) } };
  }
  const v = pagingSql(ctx, p);
  return cap === null || p.value.kind === 'const' ? v : `LEAST(${v}, ${cap})`;
}

/**
 * A limit or offset. A constant from the query text is written as an integer literal, checked to
 * be a non-negative safe integer first, so nothing but digits reaches the SQL: with a parameter
 * there, PostgreSQL keeps re-planning the prepared statement (a generic plan can't see the row
 * count), which doubled its CPU per request on the nested benchmark query. Variables stay
 * parameters, so one statement still serves every value.
 */
function pagingSql(ctx: CompileContext, p: SqlParam): string {
  const v = p.value;
  if (v.kind === 'const' && typeof v.value === 'number' && Number.isSafeInteger(v.value) && v.value >= 0) return String(v.value);
  return valueSql(ctx, p);
}
