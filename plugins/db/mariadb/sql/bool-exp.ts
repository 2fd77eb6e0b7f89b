/**
 * Boolean expressions (`where`, permission filters, checks) into MariaDB conditions. PostgreSQL's
 * operators are given their meaning here: LIKE is made case-sensitive (`LIKE BINARY`), ILIKE
 * compares lower-cased text, SIMILAR TO and the POSIX regex operators become PCRE `REGEXP` with
 * the case flag set in the pattern, and `_in` reads its array parameter through JSON_TABLE.
 */
import { type AggregatePredicateFn, type BoolExpIR, type ComparisonOp, EngineError, type ScalarExprIR, type TableRef, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { valueSql, jsonTableType } from './values.js';

export interface Scope {
  cur: string;
  root: string;
}

const BINARY: Partial<Record<ComparisonOp, string>> = {
  _eq: '=', _neq: '<>', _gt: '>', _lt: '<', _gte: '>=', _lte: '<=',
  _ceq: '=', _cneq: '<>', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=',
};

/**
 * Text types: MariaDB's default collations ignore case (and trailing spaces), PostgreSQL's
 * equality does not, so equality on text is also checked byte for byte.
 */
const TEXT_TYPES = new Set(['text', 'varchar', 'char', 'bpchar', 'character varying', 'character', 'citext']);
const isText = (dbType: string): boolean => TEXT_TYPES.has(dbType) && dbType !== 'citext';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the MariaDB kind does not support ${what}`);
};

export function scalarSql(e: ScalarExprIR, table: string): string {
  // Inherited roles' hidden cells are not compiled by this kind: refused rather than shown.
  if (e.kind === 'column') return e.visibleWhen ? notSupported('inherited roles with hidden cells') : table + '.' + quoteIdent(e.name);
  return notSupported(e.kind === 'cast' ? '_cast' : 'computed fields');
}

export function comparisonSql(ctx: CompileContext, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string {
  const p = ctx.slots;
  switch (op) {
    case '_is_null': {
      if (rhs.value.kind === 'const') {
        if (rhs.value.value === null || rhs.value.value === undefined) return 'TRUE';
        return rhs.value.value === false ? `(${lhs} IS NOT NULL)` : `(${lhs} IS NULL)`;
      }
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
    default: {
      const sqlOp = BINARY[op];
      if (sqlOp === undefined) return notSupported(`the ${op} operator`);
      return `(${lhs} ${sqlOp} ${valueSql(ctx, rhs)})`;
    }
  }
}

export function joinSql(mapping: Array<[string, string]>, from: string, to: string): string {
  if (mapping.length === 0) return 'TRUE';
  return mapping.map(([a, b]) => `(${from}.${quoteIdent(a)} = ${to}.${quoteIdent(b)})`).join(' AND ');
}

export function andSql(items: string[]): string {
  const kept = items.filter((s) => s !== 'TRUE');
  if (kept.length === 0) return 'TRUE';
  if (kept.length === 1) return kept[0]!;
  return kept.map((s) => `(${s})`).join(' AND ');
}

function orSql(items: string[]): string {
  const kept = items.filter((s) => s !== 'FALSE');
  if (kept.length === 0) return 'FALSE';
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

export function boolExpSql(ctx: CompileContext, e: BoolExpIR, scope: Scope): string {
  switch (e.kind) {
    case 'true':
      return 'TRUE';
    case 'false':
      return 'FALSE';
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
    case 'kindOperator':
      // This kind declares no type operators (SourceConnection.typeOperators).
      return notSupported(`the ${e.op} operator`);
    case 'aggregatePredicate': {
      const a = ctx.alias();
      const where = andSql([joinSql(e.mapping, scope.cur, a), e.filter === null ? 'TRUE' : boolExpSql(ctx, e.filter, { cur: a, root: scope.root })]);
      const lhs = `(SELECT ${predicateAgg(e.fn, e.args, e.distinct, a)} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where})`;
      return comparisonSql(ctx, lhs, e.predicate.op, e.predicate.rhs);
    }
  }
}
