/**
 * Boolean expressions (`where`, permission filters, checks) into T-SQL predicates. T-SQL has no
 * boolean values, so constants are `1=1` / `1=0` and a BIT compares with `= 1`. PostgreSQL's
 * meaning is kept where SQL Server's collations would change it: text equality and `_in` are
 * checked byte for byte too (case and trailing spaces count), `_like` is case-sensitive under a
 * binary collation, `_ilike` case-insensitive under a CI collation, both with `ESCAPE '\'`.
 * SQL Server (before 2025) has no regular expressions: `_similar` and the `_regex` family are
 * refused with not-supported. Spatial columns have the `_st_*` operators (spatial.ts).
 */
import { type AggregatePredicateFn, type BoolExpIR, type ComparisonOp, EngineError, type ScalarExprIR, type TableRef, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { isText, openJsonType, valueSql } from './values.js';
import { spatialCallSql, spatialOperatorSql } from '../spatial.js';

export interface Scope {
  cur: string;
  root: string;
}

export const TRUE = '1=1';
export const FALSE = '1=0';

const BINARY: Partial<Record<ComparisonOp, string>> = {
  _eq: '=', _neq: '<>', _gt: '>', _lt: '<', _gte: '>=', _lte: '<=',
  _ceq: '=', _cneq: '<>', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=',
};

/** The collations giving LIKE PostgreSQL's case rules, whatever the column's collation. */
const CASE_SENSITIVE = 'Latin1_General_100_BIN2';
const CASE_INSENSITIVE = 'Latin1_General_100_CI_AS';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the SQL Server kind does not support ${what}`);
};

/** Text as UTF-16 bytes: equal only when every character (case, trailing spaces) is. */
const exactBytes = (e: string): string => `CAST(CAST(${e} AS NVARCHAR(MAX)) AS VARBINARY(MAX))`;

export function scalarSql(e: ScalarExprIR, table: string): string {
  // Inherited roles' hidden cells are not compiled by this kind: refused rather than shown.
  if (e.kind === 'column') return e.visibleWhen ? notSupported('inherited roles with hidden cells') : table + '.' + quoteIdent(e.name);
  return notSupported(e.kind === 'cast' ? '_cast' : 'computed fields');
}

/** Types SQL Server cannot compare with `=` at all (spatial types are compared with STEquals). */
const UNCOMPARABLE = new Set(['xml', 'text', 'ntext', 'image']);

export function comparisonSql(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string {
  const p = ctx.slots;
  if (op !== '_is_null' && (rhs.dbType === 'geometry' || rhs.dbType === 'geography')) {
    // Spatial values are equal when STEquals says so; there is no order and no IN for them.
    if (op !== '_eq' && op !== '_neq') return notSupported(`the ${op} operator on ${rhs.dbType}`);
    return `(${spatialCallSql('STEquals', lhs, rhs.dbType, valueSql(ctx, rhs))} = ${op === '_eq' ? 1 : 0})`;
  }
  if (op !== '_is_null' && UNCOMPARABLE.has(rhs.dbType) && !op.includes('like')) return notSupported(`comparing ${rhs.dbType} values`);
  switch (op) {
    case '_is_null': {
      if (rhs.value.kind === 'const') {
        if (rhs.value.value === null || rhs.value.value === undefined) return TRUE;
        return rhs.value.value === false ? `(${lhs} IS NOT NULL)` : `(${lhs} IS NULL)`;
      }
      const flag = p.value({ value: rhs.value, dbType: 'bit' });
      const flag2 = p.value({ value: rhs.value, dbType: 'bit' });
      return `((${flag} = 1 AND ${lhs} IS NULL) OR (${flag2} = 0 AND ${lhs} IS NOT NULL))`;
    }
    case '_in':
    case '_nin': {
      const type = openJsonType(rhs.dbType);
      const list = (): string => `(SELECT [v] FROM OPENJSON(${p.value(rhs, 'json')}) WITH ([v] ${type} '$'))`;
      if (!isText(rhs.dbType)) return op === '_in' ? `(${lhs} IN ${list()})` : `(${lhs} NOT IN ${list()})`;
      // Text compares as PostgreSQL does, byte for byte; the collated IN before it keeps indexes usable.
      const exact = `(EXISTS (SELECT 1 FROM OPENJSON(${p.value(rhs, 'json')}) WITH ([v] NVARCHAR(MAX) '$') AS [_jv] WHERE ${exactBytes(lhs)} = ${exactBytes('[_jv].[v]')}))`;
      return op === '_in' ? `(${lhs} IN ${list()} AND ${exact})` : `(NOT ${exact})`;
    }
    case '_eq':
      if (isText(rhs.dbType)) return `(${lhs} = ${valueSql(ctx, rhs)} AND ${exactBytes(lhs)} = ${exactBytes(valueSql(ctx, rhs))})`;
      return `(${lhs} = ${valueSql(ctx, rhs)})`;
    case '_neq':
      if (isText(rhs.dbType)) return `(${exactBytes(lhs)} <> ${exactBytes(valueSql(ctx, rhs))})`;
      return `(${lhs} <> ${valueSql(ctx, rhs)})`;
    case '_like':
      return `(${lhs} COLLATE ${CASE_SENSITIVE} LIKE ${p.value(rhs, 'like')} ESCAPE '\\')`;
    case '_nlike':
      return `(${lhs} COLLATE ${CASE_SENSITIVE} NOT LIKE ${p.value(rhs, 'like')} ESCAPE '\\')`;
    case '_ilike':
      return `(${lhs} COLLATE ${CASE_INSENSITIVE} LIKE ${p.value(rhs, 'like')} ESCAPE '\\')`;
    case '_nilike':
      return `(${lhs} COLLATE ${CASE_INSENSITIVE} NOT LIKE ${p.value(rhs, 'like')} ESCAPE '\\')`;
    case '_similar':
    case '_nsimilar':
    case '_regex':
    case '_nregex':
    case '_iregex':
    case '_niregex':
      return notSupported(`the ${op} operator (SQL Server has no regular expressions)`);
    default: {
      const sqlOp = BINARY[op];
      if (sqlOp === undefined) return notSupported(`the ${op} operator`);
      return `(${lhs} ${sqlOp} ${valueSql(ctx, rhs)})`;
    }
  }
}

export function joinSql(mapping: Array<[string, string]>, from: string, to: string): string {
  if (mapping.length === 0) return TRUE;
  return mapping.map(([a, b]) => `(${from}.${quoteIdent(a)} = ${to}.${quoteIdent(b)})`).join(' AND ');
}

export function andSql(items: string[]): string {
  const kept = items.filter((s) => s !== TRUE);
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0]!;
  return kept.map((s) => `(${s})`).join(' AND ');
}

function orSql(items: string[]): string {
  const kept = items.filter((s) => s !== FALSE);
  if (kept.length === 0) return FALSE;
  if (kept.length === 1) return kept[0]!;
  return kept.map((s) => `(${s})`).join(' OR ');
}

function exists(ctx: CompileContext, target: TableRef, cond: (alias: string) => string): string {
  const a = ctx.alias();
  return `EXISTS (SELECT 1 FROM ${quoteTable(target)} AS ${a} WHERE ${cond(a)})`;
}

function predicateAgg(fn: AggregatePredicateFn, args: string[], distinct: boolean, table: string): string {
  const cols = args.map((c) => table + '.' + quoteIdent(c));
  const d = distinct ? 'DISTINCT ' : '';
  const first = cols[0] ?? 'NULL';
  switch (fn) {
    case 'bool_and':
      return `CAST(MIN(CAST(${first} AS TINYINT)) AS BIT)`;
    case 'bool_or':
      return `CAST(MAX(CAST(${first} AS TINYINT)) AS BIT)`;
    case 'count':
      if (cols.length === 0) return 'COUNT(*)';
      if (distinct && cols.length > 1) return notSupported('a distinct count of several columns');
      return distinct ? `COUNT(DISTINCT ${first})` : cols.length === 1 ? `COUNT(${first})` : 'COUNT(*)';
    case 'max':
    case 'min':
    case 'sum':
      return `${fn.toUpperCase()}(${d}${first})`;
    case 'avg':
      return `AVG(${d}CAST(${first} AS FLOAT))`;
    case 'stddev_samp':
      return `STDEV(${d}${first})`;
    case 'var_samp':
      return `VAR(${d}${first})`;
    case 'corr':
    case 'covar_samp':
      // SQL Server has neither function.
      return notSupported(`the ${fn} aggregate`);
  }
}

export function boolExpSql(ctx: CompileContext, e: BoolExpIR, scope: Scope): string {
  switch (e.kind) {
    case 'true':
      return TRUE;
    case 'false':
      return FALSE;
    case 'and':
      return andSql(e.items.map((i) => boolExpSql(ctx, i, scope)));
    case 'or':
      return orSql(e.items.map((i) => boolExpSql(ctx, i, scope)));
    case 'not':
      return `NOT (${boolExpSql(ctx, e.item, scope)})`;
    case 'compare':
      return comparisonSql(ctx, scalarSql(e.lhs, scope.cur), e.op, e.rhs);
    case 'compareColumn': {
      const sqlOp = BINARY[e.op];
      if (sqlOp === undefined) return notSupported(`the ${e.op} operator`);
      return `(${scalarSql(e.lhs, scope.cur)} ${sqlOp} ${(e.rhs.root ? scope.root : scope.cur) + '.' + quoteIdent(e.rhs.column)})`;
    }
    case 'relationship':
      return exists(ctx, e.target, (a) => andSql([joinSql(e.mapping, scope.cur, a), boolExpSql(ctx, e.where, { cur: a, root: scope.root })]));
    case 'exists':
      return exists(ctx, e.target, (a) => boolExpSql(ctx, e.where, { cur: a, root: scope.root }));
    case 'computedTable':
      return notSupported('computed fields');
    case 'kindOperator': {
      // The spatial operators (spatial.ts), the only type operators this kind declares.
      const value = e.args['value'];
      const type = e.lhs.kind === 'column' ? e.lhs.type : '';
      const sql = value === undefined ? undefined : spatialOperatorSql(e.op, scalarSql(e.lhs, scope.cur), type, valueSql(ctx, value));
      return sql ?? notSupported(`the ${e.op} operator`);
    }
    case 'aggregatePredicate': {
      const a = ctx.alias();
      const where = andSql([joinSql(e.mapping, scope.cur, a), e.filter === null ? TRUE : boolExpSql(ctx, e.filter, { cur: a, root: scope.root })]);
      const lhs = `(SELECT ${predicateAgg(e.fn, e.args, e.distinct, a)} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where})`;
      return comparisonSql(ctx, lhs, e.predicate.op, e.predicate.rhs);
    }
  }
}
