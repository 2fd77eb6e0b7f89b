/**
 * Selects into Standard SQL whose result is the response's shape in STRUCTs and ARRAYs: a list is
 * `ARRAY(SELECT AS STRUCT ... ORDER BY ... LIMIT ...)`, an object relationship a correlated
 * `(SELECT AS STRUCT ... LIMIT 1)` (NULL without a row), an array relationship a correlated
 * ARRAY subquery, an aggregate a STRUCT of aggregate subqueries and `nodes`. STRUCT fields are
 * named by position (`f0`, ...); the Shape built beside the text maps them back to response keys.
 */
import type { AggregateFieldIR, AggregateFn, AggregateOpIR, AggregateSelectIR, FieldIR, OrderByIR, OrderExprIR, SelectFromIR, SelectIR } from '../../../../core/sdk/index.js';
import { and, boolExpSql, callSql, countSql, mappingSql, notSupported } from './bool-exp.js';
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

/** BigQuery has no STRUCT without fields: a placeholder keeps `SELECT AS STRUCT` valid (and a row's presence visible). */
const fieldList = (s: Struct): string => (s.fields.length > 0 ? s.fields.join(', ') : 'TRUE AS `_`');
const shapeOf = (s: Struct): Shape => ({ kind: 'object', entries: s.entries });

/** Where a level reads its rows from: the table, the user's and the role's conditions, the correlation. */
/**
 * Where a level reads its rows from: the table (or the computed field's function, called for the
 * `parent` row), the user's and the role's conditions, the correlation.
 */
function rowsSql(ctx: CompileContext, sel: SelectFromIR, alias: string, correlation: string | null, parent: string | null): string {
  if (sel.distinctOn.length > 0) return notSupported('distinct_on');
  const from = sel.function ? callSql(ctx, sel.function, parent) : quoteTable(sel.from);
  const scope: Scope = { cur: alias, root: alias };
  const where = and([correlation, sel.where ? boolExpSql(ctx, sel.where, scope) : null, sel.permissionFilter ? boolExpSql(ctx, sel.permissionFilter, scope) : null]);
  return `FROM ${from} AS ${alias}${where === 'TRUE' ? '' : ` WHERE ${where}`}`;
}

function orderSql(ctx: CompileContext, orderBy: readonly OrderByIR[], scope: Scope): string {
  if (orderBy.length === 0) return '';
  const keys = orderBy.map((o) => `${orderExprSql(ctx, o.expr, scope)} ${o.direction === 'asc' ? 'ASC' : 'DESC'} NULLS ${o.nulls === 'first' ? 'FIRST' : 'LAST'}`);
  return ` ORDER BY ${keys.join(', ')}`;
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

function orderExprSql(ctx: CompileContext, e: OrderExprIR, scope: Scope): string {
  switch (e.kind) {
    case 'column': {
      const col = `${scope.cur}.${quoteIdent(e.name)}`;
      return e.visibleWhen ? `IF(${boolExpSql(ctx, e.visibleWhen, scope)}, ${col}, NULL)` : col;
    }
    case 'objectRelationship': {
      const a = ctx.alias();
      const inner = { cur: a, root: a };
      const where = and([mappingSql(e.mapping, scope.cur, a), e.filter ? boolExpSql(ctx, e.filter, inner) : null]);
      return `(SELECT ${orderExprSql(ctx, e.expr, inner)} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where} LIMIT 1)`;
    }
    case 'arrayAggregate': {
      const a = ctx.alias();
      const where = and([mappingSql(e.mapping, scope.cur, a), e.filter ? boolExpSql(ctx, e.filter, { cur: a, root: a }) : null]);
      const value = e.fn === 'count' ? 'COUNT(*)' : `${AGGREGATE_FNS[e.fn]}(${a}.${quoteIdent(e.column!.name)})`;
      return `(SELECT ${value} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where})`;
    }
    case 'computedAggregate': {
      const a = ctx.alias();
      const where = e.filter ? boolExpSql(ctx, e.filter, { cur: a, root: a }) : 'TRUE';
      const value = e.fn === 'count' ? 'COUNT(*)' : `${AGGREGATE_FNS[e.fn]}(${a}.${quoteIdent(e.column!.name)})`;
      return `(SELECT ${value} FROM ${callSql(ctx, e.call, scope.cur)} AS ${a}${where === 'TRUE' ? '' : ` WHERE ${where}`})`;
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
        const { sql, shape } = objectSql(ctx, f.select, mappingFor(f.mapping, scope.cur));
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'arrayRelationship': {
        const { sql, shape } = listSql(ctx, f.select, mappingFor(f.mapping, scope.cur));
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'arrayAggregate': {
        const { sql, shape } = aggregateSql(ctx, f.aggregate, mappingFor(f.mapping, scope.cur));
        addField(s, f.alias, sql, shape);
        break;
      }
      case 'computedTable': {
        const { sql, shape } = listSql(ctx, f.select, null, false, scope.cur);
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

/** The correlation of a nested level with its parent row, given the nested level's alias. */
type Correlation = ((child: string) => string) | null;
const mappingFor = (mapping: Array<[string, string]>, parent: string): Correlation => (child) => mappingSql(mapping, parent, child);

export interface Compiled {
  sql: string;
  shape: Shape;
}

/**
 * A list of rows: an ARRAY of STRUCTs, ordered and paged. The role's cap applies at every level;
 * the source's `global_select_limit` at the root (`root`), where it bounds what a query returns.
 */
export function listSql(ctx: CompileContext, sel: SelectIR, correlation: Correlation, root = false, parent: string | null = null): Compiled {
  const a = ctx.alias();
  const scope = { cur: a, root: a };
  const struct = fieldsStruct(ctx, sel.fields, scope);
  const from = rowsSql(ctx, sel, a, correlation ? correlation(a) : null, parent);
  const paging = ctx.params.pagingClause(sel.limit, sel.offset, sel.permissionLimit, root);
  return { sql: `ARRAY(SELECT AS STRUCT ${fieldList(struct)} ${from}${orderSql(ctx, sel.orderBy, scope)}${paging})`, shape: shapeOf(struct) };
}

/** At most one row: a STRUCT, or NULL. */
export function objectSql(ctx: CompileContext, sel: SelectIR, correlation: Correlation): Compiled {
  const a = ctx.alias();
  const scope = { cur: a, root: a };
  const struct = fieldsStruct(ctx, sel.fields, scope);
  const from = rowsSql(ctx, sel, a, correlation ? correlation(a) : null, null);
  return { sql: `(SELECT AS STRUCT ${fieldList(struct)} ${from}${orderSql(ctx, sel.orderBy, scope)} LIMIT 1)`, shape: shapeOf(struct) };
}

/**
 * An aggregate: a STRUCT of its `aggregate` (one aggregating subquery) and `nodes` (a list).
 * A limit or offset caps the rows aggregated, so the aggregate then reads a paged derived table.
 */
export function aggregateSql(ctx: CompileContext, agg: AggregateSelectIR, correlation: Correlation, root = false): Compiled {
  const s = newStruct();
  for (const f of agg.fields) {
    if (f.kind === 'typename') s.entries.push({ key: f.alias, constant: f.typeName });
    else if (f.kind === 'nodes') {
      const { sql, shape } = listSql(ctx, { ...agg, fields: f.fields }, correlation, root);
      addField(s, f.alias, sql, shape);
    } else {
      const { sql, shape } = aggregateOpsSql(ctx, agg, f, correlation);
      addField(s, f.alias, sql, shape);
    }
  }
  return { sql: `STRUCT(${fieldList(s)})`, shape: shapeOf(s) };
}

function aggregateOpsSql(ctx: CompileContext, agg: AggregateSelectIR, f: Extract<AggregateFieldIR, { kind: 'aggregate' }>, correlation: Correlation): Compiled {
  const a = ctx.alias();
  const inner = { cur: a, root: a };
  const from = rowsSql(ctx, agg, a, correlation ? correlation(a) : null, null);
  const paged = agg.limit !== null || agg.offset !== null || agg.permissionLimit !== null;
  let source = from;
  let cur = a;
  if (paged) {
    cur = ctx.alias();
    source = `FROM (SELECT ${a}.* ${from}${orderSql(ctx, agg.orderBy, inner)}${ctx.params.pagingClause(agg.limit, agg.offset, agg.permissionLimit, false)}) AS ${cur}`;
  }
  const scope = { cur, root: cur };
  const s = newStruct();
  for (const op of f.ops) aggregateOp(ctx, s, op, scope);
  return { sql: `(SELECT AS STRUCT ${fieldList(s)} ${source})`, shape: shapeOf(s) };
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
      addField(s, op.alias, countSql(op.columns.map((c) => col(c, op.visibleWhen?.[c])), op.distinct), SCALAR);
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
