/**
 * Boolean expressions (`where`, permission filters, checks) into MariaDB conditions. PostgreSQL's
 * operators are given their meaning here: LIKE is made case-sensitive (`LIKE BINARY`), ILIKE
 * compares lower-cased text, SIMILAR TO and the POSIX regex operators become PCRE `REGEXP` with
 * the case flag set in the pattern, and `_in` reads its array parameter through JSON_TABLE.
 */
import { type AggregatePredicateFn, type BoolExpDialect, BoolExpSql, type ComparisonOp, EngineError, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { valueSql, jsonTableType } from './values.js';

/**
 * Text types: MariaDB's default collations ignore case (and trailing spaces), PostgreSQL's
 * equality does not, so equality on text is also checked byte for byte.
 */
const TEXT_TYPES = new Set(['text', 'varchar', 'char', 'bpchar', 'character varying', 'character', 'citext']);
const isText = (dbType: string): boolean => TEXT_TYPES.has(dbType) && dbType !== 'citext';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the MariaDB kind does not support ${what}`);
};

/** An operator given PostgreSQL's meaning; null for the plain SQL operator (a constant `_is_null` is answered by the shared walk). */
function comparison(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string | null {
  const p = ctx.slots;
  switch (op) {
    case '_is_null': {
      const flag = p.value({ value: rhs.value, dbType: 'boolean' });
      const flag2 = p.value({ value: rhs.value, dbType: 'boolean' });
      return `((${flag} AND ${lhs} IS NULL) OR (NOT ${flag2} AND ${lhs} IS NOT NULL))`;
    }
    case '_in':
    case '_nin': {
      const list = (): string => `(SELECT _v FROM JSON_TABLE(${p.value(rhs, 'json')}, '$[*]' COLUMNS (_v ${jsonTableType(rhs.dbType)} PATH '$')) AS _jt)`;
      if (!isText(rhs.dbType)) return op === '_in' ? `(${lhs} IN ${list()})` : `(${lhs} NOT IN ${list()})`;
      // Text compares as PostgreSQL does, byte for byte; the collated IN before it keeps indexes usable.
      const exact = `(BINARY ${lhs} IN (SELECT BINARY _v FROM JSON_TABLE(${p.value(rhs, 'json')}, '$[*]' COLUMNS (_v LONGTEXT PATH '$')) AS _jt))`;
      return op === '_in' ? `(${lhs} IN ${list()} AND ${exact})` : `(NOT ${exact})`;
    }
    case '_eq':
      if (isText(rhs.dbType)) return `(${lhs} = ${valueSql(ctx, rhs)} AND ${lhs} = BINARY ${valueSql(ctx, rhs)})`;
      return `(${lhs} = ${valueSql(ctx, rhs)})`;
    case '_neq':
      if (isText(rhs.dbType)) return `(${lhs} <> BINARY ${valueSql(ctx, rhs)})`;
      return `(${lhs} <> ${valueSql(ctx, rhs)})`;
    case '_like':
      return `(${lhs} LIKE BINARY ${valueSql(ctx, rhs)})`;
    case '_nlike':
      return `(${lhs} NOT LIKE BINARY ${valueSql(ctx, rhs)})`;
    case '_ilike':
      return `(LOWER(${lhs}) LIKE LOWER(${valueSql(ctx, rhs)}))`;
    case '_nilike':
      return `(LOWER(${lhs}) NOT LIKE LOWER(${valueSql(ctx, rhs)}))`;
    case '_similar':
      return `(${lhs} REGEXP ${p.value(rhs, 'similar')})`;
    case '_nsimilar':
      return `(${lhs} NOT REGEXP ${p.value(rhs, 'similar')})`;
    case '_regex':
      return `(${lhs} REGEXP ${p.value(rhs, 'regex')})`;
    case '_nregex':
      return `(${lhs} NOT REGEXP ${p.value(rhs, 'regex')})`;
    case '_iregex':
      return `(${lhs} REGEXP ${p.value(rhs, 'iregex')})`;
    case '_niregex':
      return `(${lhs} NOT REGEXP ${p.value(rhs, 'iregex')})`;
    default:
      return null;
  }
}

function predicateAggregate(fn: AggregatePredicateFn, cols: string[], distinct: boolean): string {
  const d = distinct ? 'DISTINCT ' : '';
  switch (fn) {
    case 'bool_and':
      return `MIN(${cols[0] ?? 'NULL'} <> 0)`;
    case 'bool_or':
      return `MAX(${cols[0] ?? 'NULL'} <> 0)`;
    case 'count':
      if (cols.length === 0) return 'COUNT(*)';
      return distinct ? `COUNT(DISTINCT ${cols.join(', ')})` : cols.length === 1 ? `COUNT(${cols[0]})` : 'COUNT(*)';
    case 'avg':
    case 'max':
    case 'min':
    case 'sum':
    case 'stddev_samp':
    case 'var_samp':
      return `${fn.toUpperCase()}(${d}${cols[0] ?? 'NULL'})`;
    case 'corr':
    case 'covar_samp':
      // MariaDB has neither function.
      return notSupported(`the ${fn} aggregate`);
  }
}

const dialect: BoolExpDialect<CompileContext> = {
  trueSql: 'TRUE',
  falseSql: 'FALSE',
  quoteIdent,
  quoteTable,
  notSupported,
  value: valueSql,
  comparison,
  predicateAggregate,
  // This kind declares no type operators (SourceConnection.typeOperators).
  kindOperator: (_ctx, e) => notSupported(`the ${e.op} operator`),
};

export const conditions = new BoolExpSql(dialect);
export const { and: andSql, join: joinSql, scalar: scalarSql, comparison: comparisonSql, expr: boolExpSql, over: conditionSql, rowsFilter } = conditions;
