/**
 * Selects into Standard SQL whose result is the response's shape in STRUCTs and ARRAYs, built the
 * reference's way: BigQuery refuses most correlated subqueries over other tables ("cannot be
 * de-correlated", e.g. with a LIMIT), so related rows are LEFT JOINed as derived tables grouped
 * by the join columns. A list at the root is `ARRAY(SELECT AS STRUCT ... ORDER BY ... LIMIT ...)`;
 * an array relationship joins `ARRAY_AGG(STRUCT(...) ORDER BY _rn)` per parent key (ordered and
 * paged by `ROW_NUMBER()` per key, since ARRAY_AGG has no OFFSET and no NULLS FIRST/LAST); an
 * object relationship joins the first such STRUCT; a nested aggregate joins a STRUCT of
 * aggregates per key (absent: counts 0, written so by the results). STRUCT fields are named by
 * position (`f0`, ...); the Shape built beside the text maps them back to response keys.
 * Computed fields (a table-valued function called with the row's columns) stay correlated
 * ARRAY subqueries: a function call cannot be grouped by parent key.
 */
import type { AggregateFieldIR, AggregateFn, AggregateOpIR, AggregateSelectIR, FieldIR, OrderByIR, OrderExprIR, SelectFromIR, SelectIR } from '../../../../core/sdk/index.js';
import { and, boolExpSql, callSql, countSql, notSupported } from './bool-exp.js';
import type { CompileContext, Scope } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { SCALAR, type Shape, type ShapeEntry } from './shape.js';

/** A STRUCT's field list and how it maps back to response keys. */
interface Struct {
  fields: string[];
  entries: ShapeEntry[];
}

const newStruct = (): Struct => ({ fields: [], entries: [] });

function addField(s: Struct, key: string, sql: string, shape: Shape): void {
  s.entries.push({ key, field: s.fields.length, shape });
  s.fields.push(`${sql} AS ${quoteIdent('f' + s.fields.length)}`);
}

/** BigQuery has no STRUCT without fields: a placeholder keeps the STRUCT valid (and a row's presence visible). */
const fieldList = (s: Struct): string => (s.fields.length > 0 ? s.fields.join(', ') : 'TRUE AS `_`');
const shapeOf = (s: Struct): Shape => ({ kind: 'object', entries: s.entries });
const RN = '`_rn`';

/** The user's `where` and the role's filter on the rows of `scope.cur` (joins they need go to `scope.joins`). */
function filterSql(ctx: CompileContext, sel: SelectFromIR, scope: Scope, correlation: string | null = null): string {
  return and([correlation, sel.where ? boolExpSql(ctx, sel.where, scope) : null, sel.permissionFilter ? boolExpSql(ctx, sel.permissionFilter, scope) : null]);
}

const whereSql = (condition: string): string => (condition === 'TRUE' ? '' : ` WHERE ${condition}`);

function sourceSql(ctx: CompileContext, sel: SelectFromIR, parent: string | null): string {
  if (sel.distinctOn.length > 0) return notSupported('distinct_on');
  return sel.function ? callSql(ctx, sel.function, parent) : quoteTable(sel.from);
}

function orderKeys(ctx: CompileContext, orderBy: readonly OrderByIR[], scope: Scope): string {
  return orderBy.map((o) => `${orderExprSql(ctx, o.expr, scope)} ${o.direction === 'asc' ? 'ASC' : 'DESC'} NULLS ${o.nulls === 'first' ? 'FIRST' : 'LAST'}`).join(', ');
}

const AGGREGATE_FNS: Readonly<Record<AggregateFn, string>> = {
  sum: 'SUM',
  avg: 'AVG',
  min: 'MIN',
  max: 'MAX',
  stddev: 'STDDEV_SAMP',
  stddev_samp: 'STDDEV_SAMP',
  stddev_pop: 'STDDEV_POP',
  variance: 'VAR_SAMP',
  var_samp: 'VAR_SAMP',
  var_pop: 'VAR_POP',
};

/** `k0`, `k1`, ...: the join columns of a derived table grouped per parent row. */
const keyName = (i: number): string => quoteIdent('k' + i);

/**
 * LEFT JOINs `select` (a derived table with columns `k0..` and `v`) to `scope.joins` on the
 * relationship's mapping from `scope.cur`; returns the joined alias.
 */
function joinGrouped(ctx: CompileContext, scope: Scope, mapping: Array<[string, string]>, select: string): string {
  const j = ctx.alias();
  const on = mapping.map(([parent], i) => `${j}.${keyName(i)} = ${scope.cur}.${quoteIdent(parent)}`).join(' AND ');
  (scope.joins ??= []).push(` LEFT JOIN (${select}) AS ${j} ON ${on}`);
  return j;
}

/** The join columns selected as `k0..`, and grouped by the columns themselves (a joined table may have a `k0` too). */
function keysOf(mapping: Array<[string, string]>, alias: string): { select: string; group: string } {
  return {
    select: mapping.map(([, child], i) => `${alias}.${quoteIdent(child)} AS ${keyName(i)}`).join(', '),
    group: mapping.map(([, child]) => `${alias}.${quoteIdent(child)}`).join(', '),
  };
}

function orderExprSql(ctx: CompileContext, e: OrderExprIR, scope: Scope): string {
  switch (e.kind) {
    case 'column': {
      const col = `${scope.cur}.${quoteIdent(e.name)}`;
      return e.visibleWhen ? `IF(${boolExpSql(ctx, e.visibleWhen, scope)}, ${col}, NULL)` : col;
    }
    case 'objectRelationship': {
      const b = ctx.alias();
      const inner: Scope = { cur: b, root: b, joins: [] };
      const value = orderExprSql(ctx, e.expr, inner);
      const filter = e.filter ? boolExpSql(ctx, e.filter, inner) : 'TRUE';
      const keys = keysOf(e.mapping, b);
      const j = joinGrouped(ctx, scope, e.mapping, `SELECT ${keys.select}, ARRAY_AGG(${value} IGNORE NULLS LIMIT 1)[SAFE_OFFSET(0)] AS \`v\` FROM ${quoteTable(e.target)} AS ${b}${inner.joins!.join('')}${whereSql(filter)} GROUP BY ${keys.group}`);
      return `${j}.\`v\``;
    }
    case 'arrayAggregate': {
      const b = ctx.alias();
      const inner: Scope = { cur: b, root: b, joins: [] };
      const filter = e.filter ? boolExpSql(ctx, e.filter, inner) : 'TRUE';
      const value = e.fn === 'count' ? 'COUNT(*)' : `${AGGREGATE_FNS[e.fn]}(${b}.${quoteIdent(e.column!.name)})`;
      const keys = keysOf(e.mapping, b);
      const j = joinGrouped(ctx, scope, e.mapping, `SELECT ${keys.select}, ${value} AS \`v\` FROM ${quoteTable(e.target)} AS ${b}${inner.joins!.join('')}${whereSql(filter)} GROUP BY ${keys.group}`);
      return e.fn === 'count' ? `IFNULL(${j}.\`v\`, 0)` : `${j}.\`v\``;
    }
    case 'computedAggregate': {
      const a = ctx.alias();
      const inner: Scope = { cur: a, root: a, joins: [] };
      const where = e.filter ? boolExpSql(ctx, e.filter, inner) : 'TRUE';
      const value = e.fn === 'count' ? 'COUNT(*)' : `${AGGREGATE_FNS[e.fn]}(${a}.${quoteIdent(e.column!.name)})`;
      return `(SELECT ${value} FROM ${callSql(ctx, e.call, scope.cur)} AS ${a}${inner.joins!.join('')}${whereSql(where)})`;
    }
    case 'computed':
      return notSupported('ordering by scalar computed fields');
  }
}

function fieldsStruct(ctx: CompileContext, fields: readonly FieldIR[], scope: Scope): Struct {
  const s = newStruct();
  for (const f of fields) {
    switch (f.kind) {
      case 'typename':
        s.entries.push({ key: f.alias, constant: f.typeName });
        break;
      case 'column': {
        if (f.jsonPath) notSupported('JSON paths');
        let col = `${scope.cur}.${quoteIdent(f.name)}`;
        if (f.upper) col = `UPPER(${col})`;
        // ARRAY and STRUCT columns are answered as JSON documents (their shape is not the response's).
        if (f.type === 'ARRAY' || f.type === 'STRUCT') col = `TO_JSON(${col})`;
        if (f.visibleWhen) col = `IF(${boolExpSql(ctx, f.visibleWhen, scope)}, ${col}, NULL)`;
        addField(s, f.alias, col, SCALAR);
        break;
      }
      case 'objectRelationship': {
        const { sql, shape } = relatedRows(ctx, f.select, f.mapping, scope, true);
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'arrayRelationship': {
        const { sql, shape } = relatedRows(ctx, f.select, f.mapping, scope, false);
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'arrayAggregate': {
        const { sql, shape } = relatedAggregate(ctx, f.aggregate, f.mapping, scope);
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'computedTable': {
        const { sql, shape } = listSql(ctx, f.select, false, scope.cur);
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'computedScalar':
        notSupported('scalar computed fields');
        break;
      case 'remoteJoin':
        notSupported('remote relationships');
        break;
    }
  }
  return s;
}

export interface Compiled {
  sql: string;
  shape: Shape;
}

/**
 * A nested level's rows, read as `alias`: the target with its filters; when ordered or paged,
 * numbered per parent key (`_rn`) in the level's order, with the paging as a condition on it.
 */
function nestedRows(ctx: CompileContext, sel: SelectFromIR, mapping: Array<[string, string]>): { alias: string; from: string; where: string; numbered: boolean } {
  const inner = ctx.alias();
  const scope: Scope = { cur: inner, root: inner, joins: [] };
  const filter = filterSql(ctx, sel, scope);
  const table = `${sourceSql(ctx, sel, null)} AS ${inner}`;
  if (sel.orderBy.length === 0 && sel.limit === null && sel.offset === null && sel.permissionLimit === null) {
    return { alias: inner, from: `${table}${scope.joins!.join('')}`, where: filter, numbered: false };
  }
  const order = orderKeys(ctx, sel.orderBy, scope);
  const partition = mapping.map(([, child]) => `${inner}.${quoteIdent(child)}`).join(', ');
  const window = [partition ? `PARTITION BY ${partition}` : '', order ? `ORDER BY ${order}` : ''].filter((x) => x !== '').join(' ');
  const b = ctx.alias();
  const derived = `(SELECT ${inner}.*, ROW_NUMBER() OVER (${window}) AS ${RN} FROM ${table}${scope.joins!.join('')}${whereSql(filter)})`;
  return { alias: b, from: `${derived} AS ${b}`, where: ctx.params.rowNumberCondition(sel.limit, sel.offset, sel.permissionLimit, `${b}.${RN}`), numbered: true };
}

/** An array (or object) relationship: its rows' STRUCTs aggregated per parent key and joined. */
function relatedRows(ctx: CompileContext, sel: SelectIR, mapping: Array<[string, string]>, parent: Scope, single: boolean): Compiled {
  const rows = nestedRows(ctx, sel, mapping);
  const level: Scope = { cur: rows.alias, root: rows.alias, joins: [] };
  const struct = fieldsStruct(ctx, sel.fields, level);
  const keys = keysOf(mapping, rows.alias);
  const order = rows.numbered ? ` ORDER BY ${rows.alias}.${RN}` : '';
  const value = single ? `ARRAY_AGG(STRUCT(${fieldList(struct)})${order} LIMIT 1)[SAFE_OFFSET(0)]` : `ARRAY_AGG(STRUCT(${fieldList(struct)})${order})`;
  const j = joinGrouped(ctx, parent, mapping, `SELECT ${keys.select}, ${value} AS \`v\` FROM ${rows.from}${level.joins!.join('')}${whereSql(rows.where)} GROUP BY ${keys.group}`);
  return { sql: `${j}.\`v\``, shape: shapeOf(struct) };
}

/** A nested `<rel>_aggregate`: a STRUCT of its aggregate (joined per parent key) and `nodes`. */
function relatedAggregate(ctx: CompileContext, agg: AggregateSelectIR, mapping: Array<[string, string]>, parent: Scope): Compiled {
  const s = newStruct();
  for (const f of agg.fields) {
    if (f.kind === 'typename') s.entries.push({ key: f.alias, constant: f.typeName });
    else if (f.kind === 'nodes') {
      const { sql, shape } = relatedRows(ctx, { ...agg, fields: f.fields }, mapping, parent, false);
      addField(s, f.alias, sql, shape);
    } else {
      const rows = nestedRows(ctx, agg, mapping);
      const ops = aggregateOps(ctx, f, { cur: rows.alias, root: rows.alias });
      const keys = keysOf(mapping, rows.alias);
      const j = joinGrouped(ctx, parent, mapping, `SELECT ${keys.select}, STRUCT(${fieldList(ops)}) AS \`v\` FROM ${rows.from}${whereSql(rows.where)} GROUP BY ${keys.group}`);
      addField(s, f.alias, `${j}.\`v\``, { kind: 'object', entries: ops.entries, aggregate: true });
    }
  }
  return { sql: `STRUCT(${fieldList(s)})`, shape: shapeOf(s) };
}

/**
 * A list of rows as an ARRAY subquery, ordered and paged: the root (the source's
 * `global_select_limit` applies, `root`), or a computed field's rows (its function called with
 * the `parent` row's columns).
 */
export function listSql(ctx: CompileContext, sel: SelectIR, root: boolean, parent: string | null = null): Compiled {
  const a = ctx.alias();
  const scope: Scope = { cur: a, root: a, joins: [] };
  const struct = fieldsStruct(ctx, sel.fields, scope);
  const filter = filterSql(ctx, sel, scope);
  const order = orderKeys(ctx, sel.orderBy, scope);
  const paging = ctx.params.pagingClause(sel.limit, sel.offset, sel.permissionLimit, root);
  const from = `${sourceSql(ctx, sel, parent)} AS ${a}${scope.joins!.join('')}`;
  return { sql: `ARRAY(SELECT AS STRUCT ${fieldList(struct)} FROM ${from}${whereSql(filter)}${order ? ` ORDER BY ${order}` : ''}${paging})`, shape: shapeOf(struct) };
}

/** At most one row (`_by_pk`): a STRUCT, or NULL. */
export function objectSql(ctx: CompileContext, sel: SelectIR): Compiled {
  const a = ctx.alias();
  const scope: Scope = { cur: a, root: a, joins: [] };
  const struct = fieldsStruct(ctx, sel.fields, scope);
  const filter = filterSql(ctx, sel, scope);
  const order = orderKeys(ctx, sel.orderBy, scope);
  const from = `${sourceSql(ctx, sel, null)} AS ${a}${scope.joins!.join('')}`;
  return { sql: `(SELECT AS STRUCT ${fieldList(struct)} FROM ${from}${whereSql(filter)}${order ? ` ORDER BY ${order}` : ''} LIMIT 1)`, shape: shapeOf(struct) };
}

/**
 * A root aggregate: a STRUCT of its `aggregate` (one aggregating subquery) and `nodes` (a list).
 * A limit or offset caps the rows aggregated, so the aggregate then reads a paged derived table.
 */
export function aggregateSql(ctx: CompileContext, agg: AggregateSelectIR): Compiled {
  const s = newStruct();
  for (const f of agg.fields) {
    if (f.kind === 'typename') s.entries.push({ key: f.alias, constant: f.typeName });
    else if (f.kind === 'nodes') {
      const { sql, shape } = listSql(ctx, { ...agg, fields: f.fields }, true);
      addField(s, f.alias, sql, shape);
    } else {
      const { sql, shape } = rootAggregateOps(ctx, agg, f);
      addField(s, f.alias, sql, shape);
    }
  }
  return { sql: `STRUCT(${fieldList(s)})`, shape: shapeOf(s) };
}

function rootAggregateOps(ctx: CompileContext, agg: AggregateSelectIR, f: Extract<AggregateFieldIR, { kind: 'aggregate' }>): Compiled {
  const a = ctx.alias();
  const inner: Scope = { cur: a, root: a, joins: [] };
  const filter = filterSql(ctx, agg, inner);
  const paged = agg.limit !== null || agg.offset !== null || agg.permissionLimit !== null;
  let source = `FROM ${sourceSql(ctx, agg, null)} AS ${a}${inner.joins!.join('')}${whereSql(filter)}`;
  let cur = a;
  if (paged) {
    const order = orderKeys(ctx, agg.orderBy, inner);
    cur = ctx.alias();
    const paging = ctx.params.pagingClause(agg.limit, agg.offset, agg.permissionLimit, false);
    source = `FROM (SELECT ${a}.* FROM ${sourceSql(ctx, agg, null)} AS ${a}${inner.joins!.join('')}${whereSql(filter)}${order ? ` ORDER BY ${order}` : ''}${paging}) AS ${cur}`;
  }
  const ops = aggregateOps(ctx, f, { cur, root: cur });
  return { sql: `(SELECT AS STRUCT ${fieldList(ops)} ${source})`, shape: shapeOf(ops) };
}

function aggregateOps(ctx: CompileContext, f: Extract<AggregateFieldIR, { kind: 'aggregate' }>, scope: Scope): Struct {
  const s = newStruct();
  for (const op of f.ops) aggregateOp(ctx, s, op, scope);
  return s;
}

function aggregateOp(ctx: CompileContext, s: Struct, op: AggregateOpIR, scope: Scope): void {
  const col = (name: string, visibleWhen: SelectFromIR['where'] | undefined): string => {
    const c = `${scope.cur}.${quoteIdent(name)}`;
    return visibleWhen ? `IF(${boolExpSql(ctx, visibleWhen, scope)}, ${c}, NULL)` : c;
  };
  switch (op.kind) {
    case 'typename':
      s.entries.push({ key: op.alias, constant: op.typeName });
      return;
    case 'count':
      addField(s, op.alias, countSql(op.columns.map((c) => col(c, op.visibleWhen?.[c])), op.distinct), { kind: 'scalar', count: true });
      return;
    case 'fn': {
      const inner = newStruct();
      for (const field of op.fields) {
        if (field.kind === 'typename') inner.entries.push({ key: field.alias, constant: field.typeName });
        else addField(inner, field.alias, `${AGGREGATE_FNS[op.fn]}(${col(field.name, field.visibleWhen)})`, SCALAR);
      }
      addField(s, op.alias, `STRUCT(${fieldList(inner)})`, shapeOf(inner));
      return;
    }
  }
}
