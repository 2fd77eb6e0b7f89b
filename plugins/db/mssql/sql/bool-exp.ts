/**
 * Boolean expressions (`where`, permission filters, checks) into T-SQL predicates. T-SQL has no
 * boolean values, so constants are `1=1` / `1=0` and a BIT compares with `= 1`. PostgreSQL's
 * meaning is kept where SQL Server's collations would change it: text equality and `_in` are
 * checked byte for byte too (case and trailing spaces count), `_like` is case-sensitive under a
 * binary collation, `_ilike` case-insensitive under a CI collation, both with `ESCAPE '\'`.
 * SQL Server (before 2025) has no regular expressions: `_similar` and the `_regex` family are
 * refused with not-supported. Spatial columns have the `_st_*` operators (spatial.ts).
 */
import { type AggregatePredicateFn, type BoolExpDialect, BoolExpSql, type ComparisonOp, EngineError, type KindOperatorIR, type SqlScope, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { isText, openJsonType, valueSql } from './values.js';
import { spatialCallSql, spatialOperatorSql } from '../spatial.js';

export const TRUE = '1=1';
export const FALSE = '1=0';

/** The collations giving LIKE PostgreSQL's case rules, whatever the column's collation. */
const CASE_SENSITIVE = 'Latin1_General_100_BIN2';
const CASE_INSENSITIVE = 'Latin1_General_100_CI_AS';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the SQL Server kind does not support ${what}`);
};

/** Text as UTF-16 bytes: equal only when every character (case, trailing spaces) is. */
const exactBytes = (e: string): string => `CAST(CAST(${e} AS NVARCHAR(MAX)) AS VARBINARY(MAX))`;

/** Types SQL Server cannot compare with `=` at all (spatial types are compared with STEquals). */
const UNCOMPARABLE = new Set(['xml', 'text', 'ntext', 'image']);

/** An operator given PostgreSQL's meaning; null for the plain SQL operator (a constant `_is_null` is answered by the shared walk). */
function comparison(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string | null {
  const p = ctx.slots;
  if (op !== '_is_null' && (rhs.dbType === 'geometry' || rhs.dbType === 'geography')) {
    // Spatial values are equal when STEquals says so; there is no order and no IN for them.
    if (op !== '_eq' && op !== '_neq') return notSupported(`the ${op} operator on ${rhs.dbType}`);
    return `(${spatialCallSql('STEquals', lhs, rhs.dbType, valueSql(ctx, rhs))} = ${op === '_eq' ? 1 : 0})`;
  }
  if (op !== '_is_null' && UNCOMPARABLE.has(rhs.dbType) && !op.includes('like')) return notSupported(`comparing ${rhs.dbType} values`);
  switch (op) {
    case '_is_null': {
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
    default:
      return null;
  }
}

function predicateAggregate(fn: AggregatePredicateFn, cols: string[], distinct: boolean): string {
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

/** The spatial operators (spatial.ts), the only type operators this kind declares. */
function kindOperator(ctx: CompileContext, e: KindOperatorIR, scope: SqlScope): string {
  const value = e.args['value'];
  const type = e.lhs.kind === 'column' ? e.lhs.type : '';
  const sql = value === undefined ? undefined : spatialOperatorSql(e.op, scalarSql(e.lhs, scope.cur), type, valueSql(ctx, value));
  return sql ?? notSupported(`the ${e.op} operator`);
}

const dialect: BoolExpDialect<CompileContext> = { trueSql: TRUE, falseSql: FALSE, quoteIdent, quoteTable, notSupported, value: valueSql, comparison, predicateAggregate, kindOperator };

export const conditions = new BoolExpSql(dialect);
export const { and: andSql, join: joinSql, scalar: scalarSql, comparison: comparisonSql, expr: boolExpSql, over: conditionSql, rowsFilter } = conditions;
