/**
 * Boolean expressions (`where`, permission filters) into Standard SQL conditions. PostgreSQL's
 * meanings are kept: LIKE is case-sensitive with `\` escaping (as in BigQuery), ILIKE compares
 * lower-cased text, SIMILAR TO and the POSIX regex operators become RE2 `REGEXP_CONTAINS` (the
 * case flag put in the pattern when bound), `_in` tests membership in an ARRAY parameter. Through
 * relationships a condition is a correlated EXISTS, which BigQuery runs as a semi-join.
 */
import { type AggregatePredicateFn, type BoolExpIR, type ComparisonOp, EngineError, type FunctionCallIR, type ScalarExprIR, type TableRef, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext, Scope } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';

const BINARY: Partial<Record<ComparisonOp, string>> = {
  _eq: '=', _neq: '!=', _gt: '>', _lt: '<', _gte: '>=', _lte: '<=',
  _ceq: '=', _cneq: '!=', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=',
};

export const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the BigQuery kind does not support ${what}`);
};

export function scalarSql(ctx: CompileContext, e: ScalarExprIR, scope: Scope): string {
  if (e.kind === 'column') {
    const col = `${scope.cur}.${quoteIdent(e.name)}`;
    return e.visibleWhen ? `IF(${boolExpSql(ctx, e.visibleWhen, scope)}, ${col}, NULL)` : col;
  }
  return notSupported(e.kind === 'cast' ? '_cast' : 'scalar computed fields in conditions');
}

export function comparisonSql(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string {
  const p = ctx.params;
  switch (op) {
    case '_is_null': {
      if (rhs.value.kind === 'const') {
        if (rhs.value.value === null || rhs.value.value === undefined) return 'TRUE';
        return rhs.value.value === false ? `(${lhs} IS NOT NULL)` : `(${lhs} IS NULL)`;
      }
      return `((${lhs} IS NULL) = ${p.value(rhs, 'value', 'bool')})`;
    }
    case '_in':
      return `(${lhs} IN UNNEST(${p.value(rhs)}))`;
    case '_nin':
      return `(NOT (${lhs} IN UNNEST(${p.value(rhs)})))`;
    case '_like':
      return `(${lhs} LIKE ${p.value(rhs)})`;
    case '_nlike':
      return `(${lhs} NOT LIKE ${p.value(rhs)})`;
    case '_ilike':
      return `(LOWER(${lhs}) LIKE LOWER(${p.value(rhs)}))`;
    case '_nilike':
      return `(LOWER(${lhs}) NOT LIKE LOWER(${p.value(rhs)}))`;
    case '_similar':
      return `REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'similar')})`;
    case '_nsimilar':
      return `(NOT REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'similar')}))`;
    case '_regex':
      return `REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'regex')})`;
    case '_nregex':
      return `(NOT REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'regex')}))`;
    case '_iregex':
      return `REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'iregex')})`;
    case '_niregex':
      return `(NOT REGEXP_CONTAINS(${lhs}, ${p.value(rhs, 'iregex')}))`;
    default: {
      const sqlOp = BINARY[op];
      if (sqlOp === undefined) return notSupported(`the ${op} operator`);
      return `(${lhs} ${sqlOp} ${p.value(rhs)})`;
    }
  }
}

/** `alias.child = parent.column AND ...` for a relationship's column mapping (parent column → child column). */
export function mappingSql(mapping: Array<[string, string]>, parent: string, child: string): string {
  return mapping.map(([from, to]) => `${child}.${quoteIdent(to)} = ${parent}.${quoteIdent(from)}`).join(' AND ');
}

export function and(parts: Array<string | null>): string {
  const items = parts.filter((p): p is string => p !== null && p !== 'TRUE');
  if (items.length === 0) return 'TRUE';
  return items.length === 1 ? items[0]! : items.map((i) => `(${i})`).join(' AND ');
}

export function boolExpSql(ctx: CompileContext, e: BoolExpIR, scope: Scope): string {
  switch (e.kind) {
    case 'true':
      return 'TRUE';
    case 'false':
      return 'FALSE';
    case 'and':
      return e.items.length === 0 ? 'TRUE' : `(${e.items.map((i) => boolExpSql(ctx, i, scope)).join(' AND ')})`;
    case 'or':
      return e.items.length === 0 ? 'FALSE' : `(${e.items.map((i) => boolExpSql(ctx, i, scope)).join(' OR ')})`;
    case 'not':
      return `(NOT ${boolExpSql(ctx, e.item, scope)})`;
    case 'compare':
      return comparisonSql(ctx, scalarSql(ctx, e.lhs, scope), e.op, e.rhs);
    case 'compareColumn': {
      const op = BINARY[e.op];
      if (op === undefined) return notSupported(`the ${e.op} operator between columns`);
      return `(${scalarSql(ctx, e.lhs, scope)} ${op} ${e.rhs.root ? scope.root : scope.cur}.${quoteIdent(e.rhs.column)})`;
    }
    // A correlated EXISTS on equal columns is a semi-join, which BigQuery runs.
    case 'relationship': {
      const a = ctx.alias();
      const inner: Scope = { cur: a, root: scope.root, joins: [] };
      const where = and([mappingSql(e.mapping, scope.cur, a), boolExpSql(ctx, e.where, inner)]);
      return `EXISTS (SELECT 1 FROM ${quoteTable(e.target)} AS ${a}${inner.joins!.join('')} WHERE ${where})`;
    }
    case 'exists': {
      const a = ctx.alias();
      const inner: Scope = { cur: a, root: scope.root, joins: [] };
      const where = boolExpSql(ctx, e.where, inner);
      return `EXISTS (SELECT 1 FROM ${quoteTable(e.target)} AS ${a}${inner.joins!.join('')} WHERE ${where})`;
    }
    case 'aggregatePredicate': {
      // The aggregate per parent key is a grouped derived table joined where the condition is read.
      const b = ctx.alias();
      const inner: Scope = { cur: b, root: b, joins: [] };
      const filter = e.filter ? boolExpSql(ctx, e.filter, inner) : 'TRUE';
      const keys = e.mapping.map(([, child], i) => `${b}.${quoteIdent(child)} AS ${quoteIdent('k' + i)}`).join(', ');
      const group = e.mapping.map(([, child]) => `${b}.${quoteIdent(child)}`).join(', ');
      const j = ctx.alias();
      const on = e.mapping.map(([parent], i) => `${j}.${quoteIdent('k' + i)} = ${scope.cur}.${quoteIdent(parent)}`).join(' AND ');
      const derived = `SELECT ${keys}, ${aggregatePredicateSql(e.fn, e.args, e.distinct, b)} AS \`v\` FROM ${quoteTable(e.target)} AS ${b}${inner.joins!.join('')}${filter === 'TRUE' ? '' : ` WHERE ${filter}`} GROUP BY ${group}`;
      if (scope.joins === undefined) return notSupported('aggregate predicates in this position');
      scope.joins.push(` LEFT JOIN (${derived}) AS ${j} ON ${on}`);
      const value = e.fn === 'count' ? `IFNULL(${j}.\`v\`, 0)` : `${j}.\`v\``;
      return comparisonSql(ctx, value, e.predicate.op, e.predicate.rhs);
    }
    case 'computedTable': {
      const a = ctx.alias();
      const inner: Scope = { cur: a, root: scope.root, joins: [] };
      const where = boolExpSql(ctx, e.where, inner);
      return `EXISTS (SELECT 1 FROM ${callSql(ctx, e.call, scope.cur)} AS ${a}${inner.joins!.join('')} WHERE ${where})`;
    }
    case 'kindOperator':
      return notSupported(`the ${e.op} operator`);
  }
}

const PREDICATE_FNS: Readonly<Record<Exclude<AggregatePredicateFn, 'count'>, string>> = {
  bool_and: 'LOGICAL_AND',
  bool_or: 'LOGICAL_OR',
  avg: 'AVG',
  max: 'MAX',
  min: 'MIN',
  sum: 'SUM',
  stddev_samp: 'STDDEV_SAMP',
  var_samp: 'VAR_SAMP',
  corr: 'CORR',
  covar_samp: 'COVAR_SAMP',
};

function aggregatePredicateSql(fn: AggregatePredicateFn, args: string[], distinct: boolean, alias: string): string {
  const cols = args.map((c) => `${alias}.${quoteIdent(c)}`);
  if (fn === 'count') return countSql(cols, distinct);
  return `${PREDICATE_FNS[fn]}(${distinct ? 'DISTINCT ' : ''}${cols.join(', ')})`;
}

/** COUNT over no column (the rows), one column, or several (rows where none is NULL). */
export function countSql(cols: string[], distinct: boolean): string {
  if (cols.length === 0) return 'COUNT(*)';
  if (cols.length === 1) return `COUNT(${distinct ? 'DISTINCT ' : ''}${cols[0]})`;
  const anyNull = cols.map((c) => `${c} IS NULL`).join(' OR ');
  if (!distinct) return `COUNTIF(NOT (${anyNull}))`;
  return `COUNT(DISTINCT IF(${anyNull}, NULL, TO_JSON_STRING(STRUCT(${cols.join(', ')}))))`;
}

export const tableSql = (t: TableRef): string => quoteTable(t);

/**
 * A table-valued function call (a computed field's): `dataset`.`fn`(...), each argument a
 * parameter or, for `argument_mapping`, a column of the row `parent` the call is made for.
 */
export function callSql(ctx: CompileContext, call: FunctionCallIR, parent: string | null): string {
  const args = call.args.map((a) => {
    let v: string;
    switch (a.value.kind) {
      case 'value':
        v = ctx.params.value(a.value.value);
        break;
      case 'column':
        if (parent === null) return notSupported('a column argument outside a row');
        v = `${parent}.${quoteIdent(a.value.name)}`;
        break;
      case 'row':
      case 'session':
        return notSupported(`${a.value.kind} arguments of functions`);
    }
    return a.name === null ? v : `${quoteIdent(a.name)} => ${v}`;
  });
  return `${quoteTable(call.function)}(${args.join(', ')})`;
}
