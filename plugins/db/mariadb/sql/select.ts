/**
 * Selects into one MariaDB statement building the answer with JSON_OBJECT / JSON_ARRAYAGG.
 *
 * MariaDB has no LATERAL and a derived table cannot see the outer query, so only the root level
 * reads its rows from a derived table (`(SELECT .. ORDER BY .. LIMIT ..) AS _0`, paged before any
 * JSON is built). Nested levels are correlated scalar sub-selects straight over their table:
 *
 *   list:   (SELECT COALESCE(JSON_ARRAYAGG(<row> ORDER BY <keys> LIMIT n OFFSET m), JSON_ARRAY()) FROM t WHERE <join> ..)
 *   object: (SELECT <row> FROM t WHERE <join> .. LIMIT 1)
 *
 * JSON built by JSON_* functions stays JSON through sub-selects and COALESCE, so nesting needs no
 * JSON_EXTRACT. MariaDB sorts NULLs first ascending, so every key is preceded by ISNULL(key) to
 * get the requested placement. JSON_ARRAYAGG's LIMIT takes literals only: a nested level's limit
 * must be a constant of the query (a GraphQL variable there is refused, not-supported).
 */
import { type AggregateOpIR, type AggregateSelectIR, EngineError, errors, type FieldIR, type OrderByIR, type SelectFromIR, type SelectIR, type TypedValueIR, type JoinSpec, OrderSql } from '../../../../core/sdk/index.js';
import { andSql, conditions, rowsFilter } from './bool-exp.js';
import type { CompileContext } from './context.js';
import { nameLiteral, quoteIdent, quoteTable } from './quote.js';
import { isBigNumberType, timestampJsonSql } from './values.js';
import type { PagingBound } from './template.js';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the MariaDB kind does not support ${what}`);
};

/** A column's JSON value: booleans as JSON booleans, ISO timestamps, big numbers as text when asked to. */
export function columnValueSql(ctx: CompileContext, table: string, name: string, type: string): string {
  const col = table + '.' + quoteIdent(name);
  if (type === 'boolean') return `(${col} <> 0)`;
  if (type === 'timestamp') return timestampJsonSql(col);
  if (ctx.options.stringifyNumericTypes && isBigNumberType(type)) return `CAST(${col} AS CHAR)`;
  return col;
}

function jsonObject(pairs: Array<[string, string]>): string {
  return `JSON_OBJECT(${pairs.map(([k, v]) => `${nameLiteral(k)}, ${v}`).join(', ')})`;
}

export function rowSql(ctx: CompileContext, fields: FieldIR[], table: string): string {
  const pairs: Array<[string, string]> = [];
  for (const f of fields) {
    switch (f.kind) {
      case 'column':
        // JSON paths (json columns) and upper-cased values (enum tables) need capabilities this kind lacks.
        if (f.jsonPath !== undefined || f.upper) notSupported(f.upper ? 'enum tables' : 'json path arguments');
        if (f.visibleWhen) notSupported('inherited roles with hidden cells');
        pairs.push([f.alias, columnValueSql(ctx, table, f.name, f.type)]);
        break;
      case 'typename':
        pairs.push([f.alias, nameLiteral(f.typeName)]);
        break;
      case 'objectRelationship':
        pairs.push([f.alias, nestedSelect(ctx, f.select, { parent: table, mapping: f.mapping }, 'object')]);
        break;
      case 'arrayRelationship':
        pairs.push([f.alias, nestedSelect(ctx, f.select, { parent: table, mapping: f.mapping }, 'list')]);
        break;
      case 'arrayAggregate':
        pairs.push([f.alias, nestedAggregate(ctx, f.aggregate, { parent: table, mapping: f.mapping })]);
        break;
      case 'computedScalar':
      case 'computedTable':
        return notSupported('computed fields');
      case 'remoteJoin':
        return notSupported('remote relationships');
    }
  }
  return jsonObject(pairs);
}

/** `ISNULL(k) <placement>, k <direction>` for one key; a key that cannot be NULL needs no placement. */
function sortKey(key: string, o: Pick<OrderByIR, 'direction' | 'nulls'>, nullable: boolean): string {
  const dir = o.direction === 'desc' ? 'DESC' : 'ASC';
  return nullable ? `ISNULL(${key}) ${o.nulls === 'first' ? 'DESC' : 'ASC'}, ${key} ${dir}` : `${key} ${dir}`;
}

const ordering = new OrderSql<CompileContext>({
  conditions,
  sortKey,
  firstRow: (value, from, where) => `(SELECT ${value} FROM ${from} WHERE ${where} LIMIT 1)`,
  aggregateCall: (fn, column) => `${fn.toUpperCase()}(${column})`,
  derivedSortsBy: 'name',
});
const { checkSelect, terms: orderSql } = ordering;

/** A limit known now (the client's constant and the role's cap), or null for none. */
function constLimit(limit: TypedValueIR | null, cap: number | null, what: string): number | null {
  if (cap !== null && !(Number.isSafeInteger(cap) && cap >= 0)) throw errors.unexpected('invalid permission limit', { limit: cap });
  if (limit === null) return cap;
  const n = constPaging(limit, what);
  return cap === null ? n : Math.min(n, cap);
}

function constPaging(v: TypedValueIR, what: string): number {
  if (v.value.kind !== 'const') return notSupported(`a variable ${what} on a nested selection`);
  const n = v.value.value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new EngineError('validation-failed', `expected a non-negative integer for ${what}`);
  return n;
}

/** ` LIMIT n OFFSET m` for JSON_ARRAYAGG (literals only). */
function aggLimitSql(sel: SelectFromIR): string {
  const limit = constLimit(sel.limit, sel.permissionLimit, 'limit');
  const offset = sel.offset === null ? 0 : constPaging(sel.offset, 'offset');
  if (limit === null && offset === 0) return '';
  // MariaDB has no "no limit" literal: the largest row count stands for it.
  return ` LIMIT ${limit ?? '18446744073709551615'}${offset > 0 ? ` OFFSET ${offset}` : ''}`;
}

const isVariable = (v: TypedValueIR | null): boolean => v !== null && v.value.kind !== 'const';

/**
 * Nested paging from variables: JSON_ARRAYAGG's LIMIT takes literals only, so the whole ordered
 * array is built and sliced with a JSON path parameter (`$[o to e]`) computed when bound.
 */
function sliceSql(ctx: CompileContext, sel: SelectFromIR): string {
  const bound = (v: TypedValueIR | null, what: string): PagingBound | null => {
    if (v === null) return null;
    if (v.value.kind === 'const') return { const: constPaging(v, what) };
    ctx.slots.params.push(v);
    return { index: ctx.slots.params.length - 1 };
  };
  const limit = bound(sel.limit, 'limit');
  const offset = bound(sel.offset, 'offset');
  return ctx.slots.mark({ kind: 'slice', limit, offset, ...(sel.permissionLimit !== null ? { cap: sel.permissionLimit } : {}) });
}

/** `COALESCE(JSON_ARRAYAGG(<row> ORDER BY .. LIMIT ..), JSON_ARRAY())`, paged as the level asks. */
function arrayAggSql(ctx: CompileContext, sel: SelectFromIR, row: string, order: string): string {
  const ordered = order ? ` ORDER BY ${order}` : '';
  if (isVariable(sel.limit) || isVariable(sel.offset)) {
    const path = sliceSql(ctx, sel);
    return `COALESCE(JSON_EXTRACT(JSON_ARRAYAGG(${row}${ordered}), ${path}), JSON_ARRAY())`;
  }
  return `COALESCE(JSON_ARRAYAGG(${row}${ordered}${aggLimitSql(sel)}), JSON_ARRAY())`;
}

function nestedSelect(ctx: CompileContext, sel: SelectIR, join: JoinSpec, shape: 'list' | 'object'): string {
  checkSelect(sel);
  const a = ctx.alias();
  const row = rowSql(ctx, sel.fields, a);
  const where = rowsFilter(ctx, sel, a, join);
  const order = orderSql(ctx, sel.orderBy, a, sel.from);
  const from = `FROM ${quoteTable(sel.from)} AS ${a} WHERE ${where}`;
  if (shape === 'object') return `(SELECT ${row} ${from}${order ? ` ORDER BY ${order}` : ''} LIMIT 1)`;
  return `(SELECT ${arrayAggSql(ctx, sel, row, order)} ${from})`;
}

/** The root level's rows: a derived table when paged (so paging happens before JSON is built). */
interface RootRows {
  /** ` FROM ...` */
  from: string;
  /** Sort keys over the rows, for JSON_ARRAYAGG's ORDER BY ('' when unordered). */
  order: string;
}

function rootRows(ctx: CompileContext, sel: SelectFromIR, a: string, single: boolean): RootRows {
  checkSelect(sel);
  const where = rowsFilter(ctx, sel, a, null);
  const hasLimit = single || sel.limit !== null || sel.permissionLimit !== null;
  const paged = hasLimit || sel.offset !== null;
  const table = `${quoteTable(sel.from)} AS ${a}`;
  if (!paged) return { from: ` FROM ${table}${where === 'TRUE' ? '' : ` WHERE ${where}`}`, order: orderSql(ctx, sel.orderBy, a, sel.from) };
  const { extra, inner, outer } = ordering.derived(ctx, sel, a);
  let sql = `SELECT ${[`${a}.*`, ...extra].join(', ')} FROM ${table}`;
  if (where !== 'TRUE') sql += ` WHERE ${where}`;
  if (inner.length > 0) sql += ` ORDER BY ${inner.join(', ')}`;
  sql += pagingSql(ctx, sel, single);
  return { from: ` FROM (${sql}) AS ${a}`, order: outer.join(', ') };
}

/** Root paging: constants as literals, variables as parameters checked when bound. */
function pagingSql(ctx: CompileContext, sel: SelectFromIR, single: boolean): string {
  let limit: string | null;
  if (single) limit = '1';
  else if (sel.limit === null || sel.limit.value.kind === 'const') {
    const n = constLimit(sel.limit, sel.permissionLimit, 'limit');
    limit = n === null ? null : String(n);
  } else limit = ctx.slots.value(sel.limit, 'limit', sel.permissionLimit ?? undefined);
  let offset = '';
  if (!single && sel.offset !== null) {
    offset = ` OFFSET ${sel.offset.value.kind === 'const' ? constPaging(sel.offset, 'offset') : ctx.slots.value(sel.offset, 'offset')}`;
  }
  if (limit === null && offset === '') return '';
  return ` LIMIT ${limit ?? '18446744073709551615'}${offset}`;
}

export function rootSelectSql(ctx: CompileContext, sel: SelectIR, single: boolean): string {
  const a = ctx.alias();
  const rows = rootRows(ctx, sel, a, single);
  const row = rowSql(ctx, sel.fields, a);
  if (single) return `SELECT ${row} AS root${rows.from}`;
  return `SELECT COALESCE(JSON_ARRAYAGG(${row}${rows.order ? ` ORDER BY ${rows.order}` : ''}), '[]') AS root${rows.from}`;
}

/** `pageNodes`: the nodes take the level's paging (nested levels; the root pages its rows before). */
function aggregateFields(ctx: CompileContext, agg: AggregateSelectIR, a: string, order: string, pageNodes: boolean): string {
  const pairs: Array<[string, string]> = [];
  for (const f of agg.fields) {
    if (f.kind === 'typename') pairs.push([f.alias, nameLiteral(f.typeName)]);
    else if (f.kind === 'aggregate') pairs.push([f.alias, jsonObject(f.ops.map((op) => aggregateOp(ctx, op, a)))]);
    else {
      const row = rowSql(ctx, f.fields, a);
      pairs.push([f.alias, pageNodes ? arrayAggSql(ctx, agg, row, order) : `COALESCE(JSON_ARRAYAGG(${row}${order ? ` ORDER BY ${order}` : ''}), JSON_ARRAY())`]);
    }
  }
  return jsonObject(pairs);
}

function aggregateOp(ctx: CompileContext, op: AggregateOpIR, a: string): [string, string] {
  switch (op.kind) {
    case 'typename':
      return [op.alias, nameLiteral(op.typeName)];
    case 'count': {
      const cols = op.columns.map((c) => `${a}.${quoteIdent(c)}`);
      if (cols.length === 0) return [op.alias, 'COUNT(*)'];
      if (op.distinct) return [op.alias, `COUNT(DISTINCT ${cols.join(', ')})`];
      // A row value is never NULL in PostgreSQL's count((a, b)): every row counts.
      return [op.alias, cols.length === 1 ? `COUNT(${cols[0]})` : 'COUNT(*)'];
    }
    case 'fn':
      return [
        op.alias,
        jsonObject(
          op.fields.map((f): [string, string] => {
            if (f.kind === 'typename') return [f.alias, nameLiteral(f.typeName)];
            const call = `${op.fn.toUpperCase()}(${a}.${quoteIdent(f.name)})`;
            if (f.type === 'timestamp' && (op.fn === 'min' || op.fn === 'max')) return [f.alias, timestampJsonSql(call)];
            return [f.alias, ctx.options.stringifyNumericTypes && isBigNumberType(f.type) ? `CAST(${call} AS CHAR)` : call];
          }),
        ),
      ];
  }
}

export function rootAggregateSql(ctx: CompileContext, agg: AggregateSelectIR): string {
  const a = ctx.alias();
  const rows = rootRows(ctx, agg, a, false);
  return `SELECT ${aggregateFields(ctx, agg, a, rows.order, false)} AS root${rows.from}`;
}

/** A nested `<rel>_aggregate`: paging applies to its nodes only when it has no aggregate to cap. */
function nestedAggregate(ctx: CompileContext, agg: AggregateSelectIR, join: JoinSpec): string {
  checkSelect(agg);
  const a = ctx.alias();
  const paged = agg.limit !== null || agg.offset !== null || agg.permissionLimit !== null;
  if (paged && agg.fields.some((f) => f.kind === 'aggregate')) return pagedNestedAggregate(ctx, agg, join);
  const where = rowsFilter(ctx, agg, a, join);
  const order = orderSql(ctx, agg.orderBy, a, agg.from);
  return `(SELECT ${aggregateFields(ctx, agg, a, order, true)} FROM ${quoteTable(agg.from)} AS ${a} WHERE ${where})`;
}

/** Rows a mutation wrote (the `affected` slot, expanded per run), through the role's select filter. */
export function affectedRowsSql(ctx: CompileContext, sel: SelectIR): string {
  const a = ctx.alias();
  const row = rowSql(ctx, sel.fields, a);
  const where = andSql([ctx.slots.mark({ kind: 'affected', alias: a }), rowsFilter(ctx, sel, a, null)]);
  return `SELECT COALESCE(JSON_ARRAYAGG(${row}), '[]') AS root FROM ${quoteTable(sel.from)} AS ${a} WHERE ${where}`;
}

/** The JSON_TABLE column type that reads back a column of catalog type `type` from JSON. */
function readBackType(type: string): string {
  if (['smallint', 'integer', 'bigint', 'boolean'].includes(type)) return 'BIGINT';
  if (type === 'numeric') return 'DECIMAL(65,30)';
  if (type === 'real' || type === 'double precision') return 'DOUBLE';
  if (type === 'date') return 'DATE';
  if (type === 'timestamp') return 'DATETIME(6)';
  return 'LONGTEXT';
}

/**
 * A nested aggregate over a paged set (the client's limit/offset or the role's row limit): the
 * aggregated columns of the paged rows are gathered as a JSON array of arrays, which JSON_TABLE
 * reads back as rows (under the columns' own names) for the aggregate functions, since a derived
 * table could not see the parent row. The nodes are a second correlated sub-select, paged alike.
 */
function pagedNestedAggregate(ctx: CompileContext, agg: AggregateSelectIR, join: JoinSpec): string {
  const columns = new Map<string, string>();
  for (const f of agg.fields) {
    if (f.kind !== 'aggregate') continue;
    for (const op of f.ops) {
      if (op.kind === 'count') for (const c of op.columns) columns.set(c, columns.get(c) ?? 'text');
      else if (op.kind === 'fn') for (const x of op.fields) if (x.kind === 'column') columns.set(x.name, x.type);
    }
  }
  const names = [...columns.keys()];
  const a = ctx.alias();
  const values = `JSON_ARRAY(${names.map((c) => `${a}.${quoteIdent(c)}`).join(', ')})`;
  const rows = `(SELECT ${arrayAggSql(ctx, agg, values, orderSql(ctx, agg.orderBy, a, agg.from))} FROM ${quoteTable(agg.from)} AS ${a} WHERE ${rowsFilter(ctx, agg, a, join)})`;
  const defs = [`${quoteIdent('__svc_row')} FOR ORDINALITY`, ...names.map((c, i) => `${quoteIdent(c)} ${readBackType(columns.get(c)!)} PATH '$[${i}]'`)];
  const j = ctx.alias();
  const pairs: Array<[string, string]> = [];
  for (const f of agg.fields) {
    if (f.kind === 'typename') pairs.push([f.alias, nameLiteral(f.typeName)]);
    else if (f.kind === 'aggregate') pairs.push([f.alias, jsonObject(f.ops.map((op) => aggregateOp(ctx, op, j)))]);
    else {
      const n = ctx.alias();
      const row = rowSql(ctx, f.fields, n);
      pairs.push([f.alias, `(SELECT ${arrayAggSql(ctx, agg, row, orderSql(ctx, agg.orderBy, n, agg.from))} FROM ${quoteTable(agg.from)} AS ${n} WHERE ${rowsFilter(ctx, agg, n, join)})`]);
    }
  }
  return `(SELECT ${jsonObject(pairs)} FROM JSON_TABLE(${rows}, '$[*]' COLUMNS (${defs.join(', ')})) AS ${j})`;
}
