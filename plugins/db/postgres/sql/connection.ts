/**
 * Relay connections (`<t>_connection`, `<rel>_connection`): one level whose rows are paged in the
 * database. With `first`/`last` n the base select takes n + 1 rows after the cursor (keyset on the
 * order-by values, the order reversed for `last`), numbers them, and the page is rows 1..n; the
 * extra row says whether more follow. The other side of the cursor is one EXISTS.
 *
 *   SELECT json_build_object('edges', coalesce(json_agg(json_build_object('cursor', <c>, 'node', <row>)
 *            ORDER BY "__svc_rn") FILTER (WHERE "__svc_rn" <= n), '[]'),
 *          'pageInfo', json_build_object('hasNextPage', count(*) > n, ...))
 *   FROM (SELECT "_0".*, row_number() OVER (ORDER BY <keys>) AS "__svc_rn"
 *         FROM (SELECT ... WHERE <filters> AND <after cursor> ORDER BY <keys> LIMIT n + 1) AS "_0") AS "_0" ...
 *
 * pageInfo follows the reference engine: on an empty page both flags are false and both cursors
 * null; otherwise a previous page exists when rows lie before the cursor (`after`) or `last` cut
 * some, a next page when rows lie after the cursor (`before`) or `first` cut some. A row's cursor
 * is base64 of `json_build_object` of its order-by values (`{"id" : 1}`), as the reference's.
 */
import { errors, type ConnectionSelectIR, type EdgeFieldIR, type OrderByIR, type PageInfoFieldIR, type TypedValueIR } from '../../../../core/sdk/index.js';
import { andSql, boolExpSql, joinSql } from './bool-exp.js';
import { type JoinSpec, baseSelect } from './base.js';
import type { CompileContext, SqlParam } from './context.js';
import { fieldsRow } from './fields.js';
import { jsonObjectSql, type JsonPair, textLiteral } from './json-object.js';
import { callSql } from './function-call.js';
import { directionSql, orderExprSql } from './order-by.js';
import { quoteLiteral, quoteTable } from './quote.js';
import type { LevelSql } from './select.js';
import { valueSql } from './values.js';

const ROW_NUMBER = '"__svc_rn"';

/** base64 of the UTF-8 text, without the line breaks `encode` puts every 76 characters. */
export function base64Sql(text: string): string {
  return `regexp_replace(encode(convert_to(${text}, 'UTF8'), 'base64'), E'\\\\n', '', 'g')`;
}

export function connectionLevel(ctx: CompileContext, conn: ConnectionSelectIR, join: JoinSpec | null): LevelSql {
  const alias = ctx.alias();
  const needed = new Set<string>();
  const last = conn.slice?.kind === 'last';
  const count = conn.slice ? countSql(ctx, conn.slice.count) : null;
  // `last`: read backwards from the cursor, then answer in the forward order.
  const effective: OrderByIR[] = last ? conn.orderBy.map(reverse) : conn.orderBy;
  const split = conn.split;
  const splitSql = split ? (a: string) => keysetSql(ctx, conn.orderBy, split, a) : null;
  const capped = conn.permissionLimit === null ? undefined : cappedRows(ctx, conn, join);
  // A tracked function's rows (its call is written once per use; equal values share placeholders).
  const rows = (): string => (conn.function ? callSql(ctx, conn.function, null) : quoteTable(conn.from));

  let laterals = '';
  let wholeRow = false;
  const nodeRow = (fields: Parameters<typeof fieldsRow>[1]): string => {
    const row = fieldsRow(ctx, fields, alias, needed);
    laterals += row.laterals;
    wholeRow ||= row.wholeRow;
    return row.expr;
  };
  // Node rows first: they decide which columns the base select projects.
  const edgeRows = new Map<EdgeFieldIR, string>();
  for (const f of conn.fields) {
    if (f.kind !== 'edges') continue;
    for (const e of f.fields) if (e.kind === 'node') edgeRows.set(e, nodeRow(e.fields));
  }

  const base = baseSelect(
    ctx,
    { ...conn, orderBy: effective, limit: null, offset: null, permissionLimit: null },
    alias,
    needed,
    join,
    {
      exposeOrder: true,
      wholeRow,
      ...(splitSql ? { extraWhere: splitSql } : {}),
      ...(count !== null ? { limitSql: plusOne(count) } : {}),
      ...(capped !== undefined ? { fromSql: capped } : {}),
    },
  );
  const numbered = `(SELECT ${alias}.*, row_number() OVER (${base.aggOrder.trim()}) AS ${ROW_NUMBER} FROM ${base.from}) AS ${alias}`;
  const rn = `${alias}.${ROW_NUMBER}`;
  const inPage = count === null ? null : `${rn} <= ${count}`;
  const filter = inPage === null ? '' : ` FILTER (WHERE ${inPage})`;
  const forward = last ? ' DESC' : ' ASC';
  const backward = last ? ' ASC' : ' DESC';
  const cursorText = `(${cursorObjectSql(conn.cursorPaths, base.keys)})::text`;
  const cursor = base64Sql(cursorText);

  const nonEmpty = `(count(*)${filter} > 0)`;
  const more = count === null ? 'false' : `(count(*) > ${count})`;
  const otherSide = (): string => {
    // Rows of the same filtered (and capped) set on the far side of the cursor.
    const o = ctx.alias();
    const from = capped ?? rows();
    const where = andSql([
      join === null || capped !== undefined ? 'true' : joinSql(join.mapping, join.parent, o),
      capped !== undefined || conn.permissionFilter === null ? 'true' : boolExpSql(ctx, conn.permissionFilter, { cur: o, root: o }),
      capped !== undefined || conn.where === null ? 'true' : boolExpSql(ctx, conn.where, { cur: o, root: o }),
      // Keys that are never NULL make the condition two-valued: a plain NOT, which the planner can turn into an index range.
      split!.notNull.every(Boolean) ? `NOT (${splitSql!(o)})` : `(${splitSql!(o)}) IS NOT TRUE`,
    ]);
    return `EXISTS (SELECT 1 FROM ${from} AS ${o} WHERE ${where})`;
  };
  const pageInfoField = (f: PageInfoFieldIR): JsonPair => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, expr: textLiteral(f.typeName) };
      case 'startCursor':
        // Encoded once, after the aggregate picked the row.
        return { key: f.alias, expr: base64Sql(`(array_agg(${cursorText} ORDER BY ${rn}${forward})${filter})[1]`) };
      case 'endCursor':
        return { key: f.alias, expr: base64Sql(`(array_agg(${cursorText} ORDER BY ${rn}${backward})${filter})[1]`) };
      case 'hasNextPage': {
        const cut = conn.slice?.kind === 'first' ? more : 'false';
        const beyond = split?.kind === 'before' ? otherSide() : 'false';
        return { key: f.alias, expr: `(${nonEmpty} AND (${cut} OR ${beyond}))` };
      }
      case 'hasPreviousPage': {
        const cut = last ? more : 'false';
        const beyond = split?.kind === 'after' ? otherSide() : 'false';
        return { key: f.alias, expr: `(${nonEmpty} AND (${cut} OR ${beyond}))` };
      }
    }
  };
  const pairs: JsonPair[] = conn.fields.map((f): JsonPair => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, expr: textLiteral(f.typeName) };
      case 'pageInfo':
        return { key: f.alias, expr: jsonObjectSql(f.fields.map(pageInfoField)) };
      case 'edges': {
        const edge = jsonObjectSql(
          f.fields.map((e): JsonPair => {
            if (e.kind === 'typename') return { key: e.alias, expr: textLiteral(e.typeName) };
            if (e.kind === 'cursor') return { key: e.alias, expr: cursor };
            return { key: e.alias, expr: edgeRows.get(e)! };
          }),
        );
        return { key: f.alias, expr: `coalesce(json_agg(${edge} ORDER BY ${rn}${forward})${filter}, '[]')` };
      }
    }
  });
  return { expr: jsonObjectSql(pairs), from: numbered + laterals };
}

const reverse = (o: OrderByIR): OrderByIR => ({
  ...o,
  direction: o.direction === 'asc' ? 'desc' : 'asc',
  nulls: o.nulls === 'first' ? 'last' : 'first',
});

/** The page size: a literal when the query wrote one (checked by the planner), else a parameter. */
function countSql(ctx: CompileContext, count: TypedValueIR): string {
  const v = count.value;
  if (v.kind === 'const' && typeof v.value === 'number' && Number.isSafeInteger(v.value) && v.value >= 0) return String(v.value);
  const param: SqlParam = { ...count, check: 'limit' };
  return valueSql(ctx, param);
}

const plusOne = (count: string): string => (/^\d+$/.test(count) ? String(Number(count) + 1) : `(${count} + 1)`);

/**
 * Rows strictly after (or before) the cursor in the ordering: the first key past the cursor's
 * value, or equal to it and the rest past, and so on, with NULLs placed as the ordering places
 * them. The cursor's values are known when the plan is made, so a NULL one gets its own SQL and a
 * key the database says is NOT NULL gets none: `"id" > $2` for the usual primary key, which an
 * index answers.
 */
function keysetSql(ctx: CompileContext, orderBy: readonly OrderByIR[], split: NonNullable<ConnectionSelectIR['split']>, alias: string): string {
  const items = split.values.map((v, i) => {
    const o = orderBy[i]!;
    const d = split.kind === 'after' ? o : reverse(o);
    const isNull = v.value.kind === 'const' && (v.value.value === null || v.value.value === undefined);
    return { key: orderExprSql(ctx, o.expr, alias), value: isNull ? null : valueSql(ctx, v), direction: d.direction, nulls: d.nulls, notNull: split.notNull[i] === true };
  });
  const past = (x: (typeof items)[number]): string => {
    if (x.value === null) return x.nulls === 'first' && !x.notNull ? `${x.key} IS NOT NULL` : 'false';
    const op = x.direction === 'asc' ? '>' : '<';
    return x.nulls === 'last' && !x.notNull ? `(${x.key} ${op} ${x.value} OR ${x.key} IS NULL)` : `${x.key} ${op} ${x.value}`;
  };
  const equal = (x: (typeof items)[number]): string => (x.value === null ? `${x.key} IS NULL` : `${x.key} = ${x.value}`);
  const ors: string[] = [];
  items.forEach((x, i) => ors.push(andSql([...items.slice(0, i).map(equal), past(x)])));
  return ors.length === 1 ? ors[0]! : `(${ors.map((s) => `(${s})`).join(' OR ')})`;
}

/** `{"id" : 1, "author" : {"name" : "Ann"}}`: the order-by values at their cursor paths. */
function cursorObjectSql(paths: readonly string[][], keys: readonly string[]): string {
  interface Node {
    children: Map<string, Node>;
    value?: string;
  }
  const root: Node = { children: new Map() };
  paths.forEach((path, i) => {
    let node = root;
    path.forEach((step, depth) => {
      let next = node.children.get(step);
      if (!next) node.children.set(step, (next = { children: new Map() }));
      if (depth === path.length - 1) next.value = keys[i];
      node = next;
    });
  });
  const build = (node: Node): string =>
    `json_build_object(${[...node.children].map(([k, n]) => `${quoteLiteral(k)}, ${n.value ?? build(n)}`).join(', ')})`;
  return build(root);
}

/**
 * The role's row cap: the reference applies it to the filtered, ordered rows before the cursor
 * and the page cut them, so paging never reaches past the first `limit` rows.
 */
function cappedRows(ctx: CompileContext, conn: ConnectionSelectIR, join: JoinSpec | null): string {
  const c = ctx.alias();
  const where = andSql([
    join === null ? 'true' : joinSql(join.mapping, join.parent, c),
    conn.permissionFilter === null ? 'true' : boolExpSql(ctx, conn.permissionFilter, { cur: c, root: c }),
    conn.where === null ? 'true' : boolExpSql(ctx, conn.where, { cur: c, root: c }),
  ]);
  const cap = conn.permissionLimit;
  if (cap === null || !Number.isSafeInteger(cap) || cap < 0) throw errors.unexpected('invalid permission limit', { limit: cap });
  const order = conn.orderBy.map((o) => orderExprSql(ctx, o.expr, c) + directionSql(o)).join(', ');
  const from = conn.function ? callSql(ctx, conn.function, null) : quoteTable(conn.from);
  return `(SELECT ${c}.* FROM ${from} AS ${c} WHERE ${where} ORDER BY ${order} LIMIT ${cap})`;
}
