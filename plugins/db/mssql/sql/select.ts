/**
 * Selects into one T-SQL statement whose single row holds the answer, built by the server with
 * `FOR JSON PATH, INCLUDE_NULL_VALUES`. A level is a sub-select whose column aliases are the
 * GraphQL response keys:
 *
 *   list:   ISNULL((SELECT <cols> FROM <rows> AS _0 OUTER APPLY (..) AS _1 ORDER BY .. FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')
 *   object: (SELECT TOP 1 <cols> FROM .. FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)
 *
 * Relationships (and nested aggregates, remote-join keys) are each an `OUTER APPLY (SELECT <level>
 * AS [j]) AS _n` correlated with the parent row, read as `JSON_QUERY(_n.[j])` so the outer FOR
 * JSON embeds the JSON instead of escaping it as a string. The statement's answer is always a
 * sub-select (`SELECT (..) AS root`), which the server sends as one value rather than split into
 * 2033-character rows. A paged level reads its rows from a derived table ordered and paged with
 * `ORDER BY .. OFFSET .. ROWS FETCH NEXT .. ROWS ONLY` (`ORDER BY (SELECT NULL)` when unordered);
 * FETCH refuses 0, so a limit of 0 fetches one row that a `gate` condition then drops. SQL
 * Server sorts NULLs first ascending, so a nullable key gets a `CASE WHEN k IS NULL` term placing
 * NULLs as asked.
 */
import { type AggregateFn, type AggregateOpIR, type AggregateSelectIR, type JoinSpec, OrderSql, EngineError, errors, type FieldIR, type OrderByIR, type SelectFromIR, type SelectIR, type TypedValueIR } from '../../../../core/sdk/index.js';
import { andSql, conditions, rowsFilter, TRUE } from './bool-exp.js';
import type { CompileContext } from './context.js';
import { jsonKey, nameLiteral, quoteIdent, quoteTable } from './quote.js';
import { NO_LIMIT } from './template.js';
import { isBigNumberType, isIntegerType } from './values.js';

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the SQL Server kind does not support ${what}`);
};

const FOR_JSON = 'FOR JSON PATH, INCLUDE_NULL_VALUES';
const FOR_JSON_OBJECT = 'FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER';

/** A level's select list and the OUTER APPLY clauses its relationship fields read from. */
interface RowParts {
  columns: string[];
  applies: string[];
}

/**
 * A number as text with every digit: CAST of a FLOAT keeps 6 significant digits (`1.23457e+006`),
 * style 3 keeps 17; MONEY's style 2 keeps its 4 decimals.
 */
export function numberTextSql(expr: string, type: string): string {
  if (type === 'float' || type === 'real') return `CONVERT(NVARCHAR(64), ${expr}, 3)`;
  if (type === 'money' || type === 'smallmoney') return `CONVERT(NVARCHAR(64), ${expr}, 2)`;
  return `CAST(${expr} AS NVARCHAR(64))`;
}

/**
 * A column's JSON value: big numbers as text when asked to (BIT is written true/false by FOR
 * JSON). FOR JSON cannot serialize CLR types, so spatial values are given as WKT text and
 * hierarchyid as its path; xml and sql_variant go as text.
 */
export function columnValueSql(ctx: CompileContext, table: string, name: string, type: string): string {
  const col = table + '.' + quoteIdent(name);
  if (ctx.options.stringifyNumericTypes && isBigNumberType(type)) return numberTextSql(col, type);
  if (type === 'geography' || type === 'geometry') return `${col}.STAsText()`;
  if (type === 'hierarchyid') return `${col}.ToString()`;
  if (type === 'xml' || type === 'sql_variant') return `CAST(${col} AS NVARCHAR(MAX))`;
  return col;
}

/** A JSON value computed by a correlated sub-select: an OUTER APPLY, read as JSON. */
function applied(ctx: CompileContext, parts: RowParts, key: string, json: string): void {
  const r = ctx.alias();
  parts.applies.push(`OUTER APPLY (SELECT ${json} AS [j]) AS ${r}`);
  parts.columns.push(`JSON_QUERY(${r}.[j]) AS ${jsonKey(key)}`);
}

export function rowParts(ctx: CompileContext, fields: FieldIR[], table: string): RowParts {
  const parts: RowParts = { columns: [], applies: [] };
  for (const f of fields) {
    switch (f.kind) {
      case 'column':
        // JSON paths (json columns) and upper-cased values (enum tables) need capabilities this kind lacks.
        if (f.jsonPath !== undefined || f.upper) notSupported(f.upper ? 'enum tables' : 'json path arguments');
        if (f.visibleWhen) notSupported('inherited roles with hidden cells');
        parts.columns.push(`${columnValueSql(ctx, table, f.name, f.type)} AS ${jsonKey(f.alias)}`);
        break;
      case 'typename':
        parts.columns.push(`${nameLiteral(f.typeName)} AS ${jsonKey(f.alias)}`);
        break;
      case 'objectRelationship':
        applied(ctx, parts, f.alias, selectLevel(ctx, f.select, { parent: table, mapping: f.mapping }, 'object'));
        break;
      case 'arrayRelationship':
        applied(ctx, parts, f.alias, selectLevel(ctx, f.select, { parent: table, mapping: f.mapping }, 'list'));
        break;
      case 'arrayAggregate':
        applied(ctx, parts, f.alias, aggregateLevel(ctx, f.aggregate, { parent: table, mapping: f.mapping }));
        break;
      case 'remoteJoin': {
        // The join columns only: the executor swaps this object for the remote answer.
        const cols = f.columns.map((c) => `${columnValueSql(ctx, table, c.name, c.type)} AS ${jsonKey(c.name)}`);
        applied(ctx, parts, f.alias, `(SELECT ${cols.join(', ')} ${FOR_JSON_OBJECT})`);
        break;
      }
      case 'computedScalar':
      case 'computedTable':
        return notSupported('computed fields');
      case 'nodeId':
      case 'arrayConnection':
        // Relay's fields: the kind does not declare `relay`.
        return notSupported('relay');
      default: {
        // A field kind added to the IR must be compiled or refused here, never skipped.
        const unknown: never = f;
        return notSupported(`the field ${JSON.stringify(unknown)}`);
      }
    }
  }
  // FOR JSON needs at least one column.
  if (parts.columns.length === 0) notSupported('a selection with no fields');
  return parts;
}

const AGGREGATE_FUNCTIONS: Readonly<Record<AggregateFn, string>> = {
  sum: 'SUM',
  avg: 'AVG',
  min: 'MIN',
  max: 'MAX',
  stddev: 'STDEV',
  stddev_samp: 'STDEV',
  stddev_pop: 'STDEVP',
  variance: 'VAR',
  var_samp: 'VAR',
  var_pop: 'VARP',
};

/**
 * An aggregate call as PostgreSQL answers it: AVG and the deviations of integers are not
 * integers, and the SUM of integers does not overflow their type (PostgreSQL's sum(int) is a
 * bigint; SQL Server's SUM of an INT is an INT).
 */
function aggregateCall(fn: AggregateFn, column: string, type: string): string {
  if (fn === 'sum') return type === 'int' || type === 'smallint' || type === 'tinyint' ? `SUM(CAST(${column} AS BIGINT))` : `SUM(${column})`;
  const arg = isIntegerType(type) && fn !== 'min' && fn !== 'max' ? `CAST(${column} AS FLOAT)` : column;
  return `${AGGREGATE_FUNCTIONS[fn]}(${arg})`;
}

/** `CASE WHEN k IS NULL ..` placement, then `k <direction>`; a key that cannot be NULL needs no placement. */
function sortKey(key: string, o: Pick<OrderByIR, 'direction' | 'nulls'>, nullable: boolean): string {
  const dir = o.direction === 'desc' ? 'DESC' : 'ASC';
  if (!nullable) return `${key} ${dir}`;
  return `CASE WHEN ${key} IS NULL THEN ${o.nulls === 'first' ? 0 : 1} ELSE ${o.nulls === 'first' ? 1 : 0} END, ${key} ${dir}`;
}

const ordering = new OrderSql<CompileContext>({
  conditions,
  sortKey,
  firstRow: (value, from, where) => `(SELECT TOP 1 ${value} FROM ${from} WHERE ${where})`,
  aggregateCall,
  // SQL Server's ORDER BY takes a select-list alias only bare, not inside the CASE placing NULLs.
  derivedSortsBy: 'expression',
});
const { checkSelect, terms: orderSql } = ordering;

function constPaging(v: TypedValueIR, what: string): number {
  const n = v.value.kind === 'const' ? v.value.value : undefined;
  if (typeof n === 'number' && n < 0) throw new EngineError('not-supported', 'unexpected negative value');
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new EngineError('validation-failed', `expected a non-negative integer for ${what}`);
  return n;
}

/**
 * ` OFFSET .. ROWS FETCH NEXT .. ROWS ONLY` and the gate dropping every row when the limit is 0
 * (FETCH takes no 0). Constants are literals, variables parameters checked when bound.
 */
function pagingSql(ctx: CompileContext, sel: SelectFromIR, single: boolean): { clause: string; gate: string } {
  const cap = sel.permissionLimit;
  if (cap !== null && !(Number.isSafeInteger(cap) && cap >= 0)) throw errors.unexpected('invalid permission limit', { limit: cap });
  let fetch: string | null = null;
  let gate = TRUE;
  if (single) fetch = '1';
  else if (sel.limit !== null && sel.limit.value.kind !== 'const') {
    fetch = ctx.slots.value(sel.limit, 'limit', cap ?? undefined);
    gate = `${ctx.slots.value(sel.limit, 'gate', cap ?? undefined)} = 1`;
  } else {
    const given = sel.limit === null ? null : constPaging(sel.limit, 'limit');
    const n = given === null ? cap : cap === null ? given : Math.min(given, cap);
    if (n !== null) {
      fetch = String(Math.max(1, Math.min(n, NO_LIMIT)));
      if (n === 0) gate = '1=0';
    }
  }
  let offset: string | null = null;
  if (!single && sel.offset !== null) offset = sel.offset.value.kind === 'const' ? String(constPaging(sel.offset, 'offset')) : ctx.slots.value(sel.offset, 'offset');
  if (fetch === null && offset === null) return { clause: '', gate };
  return { clause: ` OFFSET ${offset ?? '0'} ROWS${fetch === null ? '' : ` FETCH NEXT ${fetch} ROWS ONLY`}`, gate };
}

/** Where a level's rows come from, and the ORDER BY over them ('' when unordered). */
interface LevelRows {
  /** `<source> AS <alias>` */
  from: string;
  /** The condition over the rows (TRUE when the derived table applied it). */
  where: string;
  order: string;
}

/**
 * A level's rows: the table itself when not paged, else a derived table ordered and paged before
 * any JSON is built. Order keys that are not columns are computed once inside and read by name.
 */
function levelRows(ctx: CompileContext, sel: SelectFromIR, a: string, join: JoinSpec | null, single: boolean): LevelRows {
  checkSelect(sel);
  const where = rowsFilter(ctx, sel, a, join);
  const paged = single || sel.limit !== null || sel.permissionLimit !== null || sel.offset !== null;
  const table = `${quoteTable(sel.from)} AS ${a}`;
  if (!paged) return { from: table, where, order: orderSql(ctx, sel.orderBy, a, sel.from) };
  const { extra, inner, outer } = ordering.derived(ctx, sel, a);
  const paging = pagingSql(ctx, sel, single);
  let sql = `SELECT ${[`${a}.*`, ...extra].join(', ')} FROM ${table}`;
  const cond = andSql([where, paging.gate]);
  if (cond !== TRUE) sql += ` WHERE ${cond}`;
  sql += ` ORDER BY ${inner.length > 0 ? inner.join(', ') : '(SELECT NULL)'}${paging.clause}`;
  return { from: `(${sql}) AS ${a}`, where: TRUE, order: outer.join(', ') };
}

function levelSql(parts: RowParts, rows: LevelRows, shape: 'list' | 'object'): string {
  let sql = `SELECT ${shape === 'object' ? 'TOP 1 ' : ''}${parts.columns.join(', ')} FROM ${rows.from}`;
  if (parts.applies.length > 0) sql += ' ' + parts.applies.join(' ');
  if (rows.where !== TRUE) sql += ` WHERE ${rows.where}`;
  if (rows.order) sql += ` ORDER BY ${rows.order}`;
  return shape === 'object' ? `(${sql} ${FOR_JSON_OBJECT})` : `ISNULL((${sql} ${FOR_JSON}), N'[]')`;
}

/** A level's JSON (an array, or an object or NULL) as an expression. */
function selectLevel(ctx: CompileContext, sel: SelectIR, join: JoinSpec | null, shape: 'list' | 'object'): string {
  const a = ctx.alias();
  const rows = levelRows(ctx, sel, a, join, false);
  const parts = rowParts(ctx, sel.fields, a);
  return levelSql(parts, rows, shape);
}

export function rootSelectSql(ctx: CompileContext, sel: SelectIR, single: boolean): string {
  if (!single) return `SELECT ${selectLevel(ctx, sel, null, 'list')} AS [root]`;
  const a = ctx.alias();
  const rows = levelRows(ctx, sel, a, null, true);
  return `SELECT ${levelSql(rowParts(ctx, sel.fields, a), rows, 'object')} AS [root]`;
}

function aggregateOp(ctx: CompileContext, op: AggregateOpIR, a: string): string[] {
  switch (op.kind) {
    case 'typename':
      return [`${nameLiteral(op.typeName)} AS ${jsonKey(op.alias)}`];
    case 'count': {
      if (op.visibleWhen) notSupported('inherited roles with hidden cells');
      const cols = op.columns.map((c) => `${a}.${quoteIdent(c)}`);
      if (cols.length === 0) return [`COUNT(*) AS ${jsonKey(op.alias)}`];
      if (op.distinct) return cols.length === 1 ? [`COUNT(DISTINCT ${cols[0]}) AS ${jsonKey(op.alias)}`] : notSupported('a distinct count of several columns');
      // A row value is never NULL in PostgreSQL's count((a, b)): every row counts.
      return [`${cols.length === 1 ? `COUNT(${cols[0]})` : 'COUNT(*)'} AS ${jsonKey(op.alias)}`];
    }
    case 'fn':
      // Dotted aliases nest under the function's key: [sum.views] → {"sum": {"views": ..}}.
      return op.fields.map((f) => {
        const key = `[${jsonKey(op.alias).slice(1, -1)}.${jsonKey(f.alias).slice(1, -1)}]`;
        if (f.kind === 'typename') return `${nameLiteral(f.typeName)} AS ${key}`;
        if (f.visibleWhen) notSupported('inherited roles with hidden cells');
        const call = aggregateCall(op.fn, `${a}.${quoteIdent(f.name)}`, f.type);
        // AVG and the deviations are FLOAT whatever the column (aggregateCall), SUM of an integer BIGINT.
        const resultType = call.startsWith('SUM(') ? (isIntegerType(f.type) ? 'bigint' : f.type) : call.includes('AS FLOAT)') ? 'float' : f.type;
        return `${ctx.options.stringifyNumericTypes && isBigNumberType(resultType) ? numberTextSql(call, resultType) : call} AS ${key}`;
      });
  }
}

/**
 * `{aggregate, nodes, __typename}` as one object: the aggregates and the nodes each read the
 * level's rows (paged alike, so a limit caps the rows aggregated).
 */
function aggregateLevel(ctx: CompileContext, agg: AggregateSelectIR, join: JoinSpec | null): string {
  const columns: string[] = [];
  for (const f of agg.fields) {
    if (f.kind === 'typename') columns.push(`${nameLiteral(f.typeName)} AS ${jsonKey(f.alias)}`);
    else if (f.kind === 'aggregate') {
      const a = ctx.alias();
      const rows = levelRows(ctx, agg, a, join, false);
      const ops = f.ops.flatMap((op) => aggregateOp(ctx, op, a));
      if (ops.length === 0) notSupported('an aggregate with no fields');
      const where = rows.where === TRUE ? '' : ` WHERE ${rows.where}`;
      columns.push(`JSON_QUERY((SELECT ${ops.join(', ')} FROM ${rows.from}${where} ${FOR_JSON_OBJECT})) AS ${jsonKey(f.alias)}`);
    } else {
      const a = ctx.alias();
      const rows = levelRows(ctx, agg, a, join, false);
      columns.push(`JSON_QUERY(${levelSql(rowParts(ctx, f.fields, a), rows, 'list')}) AS ${jsonKey(f.alias)}`);
    }
  }
  if (columns.length === 0) notSupported('an aggregate selection with no fields');
  return `(SELECT ${columns.join(', ')} ${FOR_JSON_OBJECT})`;
}

export function rootAggregateSql(ctx: CompileContext, agg: AggregateSelectIR): string {
  return `SELECT ${aggregateLevel(ctx, agg, null)} AS [root]`;
}

/** Rows a mutation wrote (the `affected` slot, expanded per run), through the role's select filter. */
export function affectedRowsSql(ctx: CompileContext, sel: SelectIR): string {
  const a = ctx.alias();
  const parts = rowParts(ctx, sel.fields, a);
  const where = andSql([ctx.slots.mark({ kind: 'affected', alias: a }), rowsFilter(ctx, sel, a, null)]);
  return `SELECT ${levelSql(parts, { from: `${quoteTable(sel.from)} AS ${a}`, where, order: '' }, 'list')} AS [root]`;
}
