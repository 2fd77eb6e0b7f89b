/**
 * Boolean expressions (`where`, permission filters) into SQL conditions.
 */
import {
  type AggregatePredicateFn,
  type BoolExpIR,
  type ComparisonOp,
  errors,
  type ScalarExprIR,
  type TableRef,
  type TypedValueIR,
} from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable, sqlType } from './quote.js';
import { castType, valueSql } from './values.js';
import { callSql } from './function-call.js';
import { extensionOperatorSql } from '../extension-types.js';

/** Which table a bare column means: `cur` is the table being filtered, `root` where the filter began. */
export interface Scope {
  cur: string;
  root: string;
}

const BINARY_OPS: Partial<Record<ComparisonOp, string>> = {
  _eq: '=', _neq: '<>', _gt: '>', _lt: '<', _gte: '>=', _lte: '<=',
  _ceq: '=', _cneq: '<>', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=',
  _like: 'LIKE', _nlike: 'NOT LIKE', _ilike: 'ILIKE', _nilike: 'NOT ILIKE',
  _similar: 'SIMILAR TO', _nsimilar: 'NOT SIMILAR TO',
  _regex: '~', _nregex: '!~', _iregex: '~*', _niregex: '!~*',
  _contains: '@>', _contained_in: '<@',
  _has_key: '?', _has_keys_any: '?|', _has_keys_all: '?&',
};

// Operators whose right-hand side is an array whatever the value's own type.
const ARRAY_RHS = new Set<ComparisonOp>(['_in', '_nin', '_has_keys_any', '_has_keys_all']);

/** `table` is the alias of the row's table, whose whole-row value computed fields are called with. */
export function scalarSql(ctx: CompileContext, e: ScalarExprIR, table: string): string {
  if (e.kind === 'column') {
    const col = table + '.' + quoteIdent(e.name);
    return e.visibleWhen ? visibleWhenSql(ctx, e.visibleWhen, table, col) : col;
  }
  if (e.kind === 'computed') {
    const call = callSql(ctx, e.call, table);
    return e.visibleWhen ? visibleWhenSql(ctx, e.visibleWhen, table, call) : call;
  }
  return `(${scalarSql(ctx, e.expr, table)})::${sqlType(e.toType)}`;
}

/** A cell an inherited role sees only on rows passing `cond` (the reference's CASE WHEN). */
export function visibleWhenSql(ctx: CompileContext, cond: BoolExpIR, table: string, value: string): string {
  return `(CASE WHEN ${boolExpSql(ctx, cond, { cur: table, root: table })} THEN ${value} ELSE NULL END)`;
}

/**
 * The columns of the current row a condition reads (added to `out`); true when it also needs
 * the whole row (a computed field). Nested tables are reached through the mapping's columns.
 */
export function columnsRead(e: BoolExpIR, out: Set<string>): boolean {
  const scalar = (s: ScalarExprIR): boolean => {
    if (s.kind === 'column') {
      out.add(s.name);
      return s.visibleWhen ? columnsRead(s.visibleWhen, out) : false;
    }
    if (s.kind === 'cast') return scalar(s.expr);
    return true;
  };
  const rootRefs = (x: BoolExpIR): void => {
    // `_ceq: ["$", col]` deeper down still reads this row.
    if (x.kind === 'compareColumn' && x.rhs.root) out.add(x.rhs.column);
    else if (x.kind === 'and' || x.kind === 'or') x.items.forEach(rootRefs);
    else if (x.kind === 'not') rootRefs(x.item);
    else if (x.kind === 'relationship' || x.kind === 'exists' || x.kind === 'computedTable') rootRefs(x.where);
  };
  switch (e.kind) {
    case 'true':
    case 'false':
      return false;
    case 'and':
    case 'or':
      return e.items.map((i) => columnsRead(i, out)).some(Boolean);
    case 'not':
      return columnsRead(e.item, out);
    case 'compare':
    case 'kindOperator':
      return scalar(e.lhs);
    case 'compareColumn':
      out.add(e.rhs.column);
      return scalar(e.lhs);
    case 'relationship':
      for (const [c] of e.mapping) out.add(c);
      rootRefs(e.where);
      return false;
    case 'exists':
      rootRefs(e.where);
      return false;
    case 'computedTable':
      // The function takes the whole row.
      rootRefs(e.where);
      return true;
    case 'aggregatePredicate':
      for (const [c] of e.mapping) out.add(c);
      if (e.filter) rootRefs(e.filter);
      return false;
  }
}

/** `lhs <op> value`, with `lhs` already SQL. */
export function comparisonSql(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string {
  if (op === '_is_null') return isNullSql(ctx, lhs, rhs);
  const v = valueSql(ctx, rhs, ARRAY_RHS.has(op));
  if (op === '_in' || op === '_nin') {
    // A session variable is a scalar sub-select, and `ANY((SELECT ...))` would parse as the
    // sub-query form of ANY (comparing each element with the whole array): a cast makes it an
    // array expression.
    const arr = rhs.value.kind === 'session' ? `${v}::${castType(rhs, true)}` : v;
    return op === '_in' ? `(${lhs} = ANY(${arr}))` : `(${lhs} <> ALL(${arr}))`;
  }
  const sqlOp = BINARY_OPS[op];
  if (sqlOp === undefined) throw errors.unexpected(`unsupported comparison operator ${op}`);
  return `(${lhs} ${sqlOp} ${v})`;
}

function isNullSql(ctx: CompileContext, lhs: string, rhs: TypedValueIR): string {
  if (rhs.value.kind === 'const') {
    // A null flag means the client left the operator out, as for other operators' null values.
    if (rhs.value.value === null || rhs.value.value === undefined) return 'true';
    return rhs.value.value === false ? `(${lhs} IS NOT NULL)` : `(${lhs} IS NULL)`;
  }
  // Only known per request: one plan must serve both answers.
  const flag = valueSql(ctx, { value: rhs.value, dbType: 'boolean' });
  return `((${flag} AND ${lhs} IS NULL) OR (NOT ${flag} AND ${lhs} IS NOT NULL))`;
}

export function joinSql(mapping: Array<[string, string]>, from: string, to: string): string {
  if (mapping.length === 0) return 'true';
  return mapping.map(([a, b]) => `(${from}.${quoteIdent(a)} = ${to}.${quoteIdent(b)})`).join(' AND ');
}

/** SQL for an aggregate call over `table` in an aggregate predicate (`corr`/`covar_samp` take Y, X). */
function predicateAggSql(fn: AggregatePredicateFn, args: string[], distinct: boolean, table: string): string {
  const d = distinct ? 'DISTINCT ' : '';
  const cols = args.map((c) => table + '.' + quoteIdent(c));
  if (fn !== 'count') return `${fn}(${d}${cols.length > 0 ? cols.join(', ') : 'NULL'})`;
  if (cols.length === 0) return distinct ? `count(DISTINCT ${table}.*)` : 'count(*)';
  return cols.length === 1 ? `count(${d}${cols[0]})` : `count(${d}(${cols.join(', ')}))`;
}

/**
 * AND of several optional conditions. Only neutral items are dropped: an item that absorbs the
 * rest (`false` in AND) must stay beside them, because dropping a sibling would leave its
 * placeholders unreferenced and the server could not type them.
 */
export function andSql(items: string[]): string {
  const kept = items.filter((s) => s !== 'true');
  if (kept.length === 0) return 'true';
  if (kept.length === 1) return kept[0]!;
  return kept.map((s) => `(${s})`).join(' AND ');
}

function orSql(items: string[]): string {
  const kept = items.filter((s) => s !== 'false');
  if (kept.length === 0) return 'false';
  if (kept.length === 1) return kept[0]!;
  return kept.map((s) => `(${s})`).join(' OR ');
}

function subFilter(ctx: CompileContext, target: TableRef, cond: (alias: string) => string): string {
  const a = ctx.alias();
  return `EXISTS (SELECT 1 FROM ${quoteTable(target)} AS ${a} WHERE ${cond(a)})`;
}

export function boolExpSql(ctx: CompileContext, e: BoolExpIR, scope: Scope): string {
  switch (e.kind) {
    case 'true':
      return 'true';
    case 'false':
      return 'false';
    case 'and':
      return andSql(e.items.map((i) => boolExpSql(ctx, i, scope)));
    case 'or':
      return orSql(e.items.map((i) => boolExpSql(ctx, i, scope)));
    case 'not':
      return `NOT (${boolExpSql(ctx, e.item, scope)})`;
    case 'compare':
      return comparisonSql(ctx, scalarSql(ctx, e.lhs, scope.cur), e.op, e.rhs);
    case 'kindOperator': {
      const args: Record<string, string> = {};
      for (const [k, v] of Object.entries(e.args)) args[k] = valueSql(ctx, v);
      const sql = extensionOperatorSql(e.op, scalarSql(ctx, e.lhs, scope.cur), args);
      if (sql === undefined) throw errors.unexpected(`unsupported comparison operator ${e.op}`);
      return sql;
    }
    case 'compareColumn': {
      const sqlOp = BINARY_OPS[e.op];
      if (sqlOp === undefined) throw errors.unexpected(`unsupported column comparison operator ${e.op}`);
      const rhs = (e.rhs.root ? scope.root : scope.cur) + '.' + quoteIdent(e.rhs.column);
      return `(${scalarSql(ctx, e.lhs, scope.cur)} ${sqlOp} ${rhs})`;
    }
    case 'relationship':
      return subFilter(ctx, e.target, (a) =>
        andSql([joinSql(e.mapping, scope.cur, a), boolExpSql(ctx, e.where, { cur: a, root: scope.root })]),
      );
    case 'exists':
      return subFilter(ctx, e.target, (a) => boolExpSql(ctx, e.where, { cur: a, root: scope.root }));
    case 'computedTable': {
      // The function is called with the current row, as when the field is selected.
      const a = ctx.alias();
      return `EXISTS (SELECT 1 FROM ${callSql(ctx, e.call, scope.cur)} AS ${a} WHERE ${boolExpSql(ctx, e.where, { cur: a, root: scope.root })})`;
    }
    case 'aggregatePredicate': {
      const a = ctx.alias();
      const where = andSql([
        joinSql(e.mapping, scope.cur, a),
        e.filter === null ? 'true' : boolExpSql(ctx, e.filter, { cur: a, root: scope.root }),
      ]);
      const agg = predicateAggSql(e.fn, e.args, e.distinct, a);
      const lhs = `(SELECT ${agg} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where})`;
      return comparisonSql(ctx, lhs, e.predicate.op, e.predicate.rhs);
    }
  }
}
