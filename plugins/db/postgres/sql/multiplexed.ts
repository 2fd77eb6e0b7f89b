/**
 * Multiplexed subscriptions: ONE statement answers a batch of cohorts. Each cohort is a row of
 * `UNNEST($1::uuid[], $2::json[])`, and the subscription's select runs once per row in a lateral,
 * reading that cohort's values from its JSON, as the reference engine does:
 *
 *   SELECT "__subs"."result_id", "__fld_resp"."root" AS "result"[, "__fld_resp"."cursor"]
 *   FROM UNNEST(($1)::uuid[], ($2)::json[]) AS "__subs"("result_id", "result_vars")
 *   LEFT OUTER JOIN LATERAL (SELECT json_build_object('<alias>', "_f0"."root", ...) AS "root" ...
 *     FROM (<field select>) AS "_f0", ...) AS "__fld_resp" ON ('true')
 *
 * A cohort's JSON is `{"session": {...}, "synthetic": ["<text>", ...], "cursor": {"<col>": "<text>"}}`:
 * session variables by name, the statement's values by position (as text, cast to their type
 * where they are used, so one statement serves every value) and a stream's cursor.
 */
import { errors, type MultiplexedStatement, type StreamIR, type SubscriptionFieldIR } from '../../../../core/sdk/index.js';
import { aggregateLevel } from './aggregate.js';
import { baseSelect } from './base.js';
import { CompileContext, type PgCompileOptions } from './context.js';
import { fieldsRow } from './fields.js';
import { jsonObjectSql, type JsonPair } from './json-object.js';
import { quoteIdent, quoteLiteral, sqlType } from './quote.js';
import { selectLevel } from './select.js';
import { statementName } from './statement-name.js';
import { textLiteral } from './json-object.js';

const VARS = '"__subs"."result_vars"';

/** Reads values out of the cohort's JSON instead of statement parameters. */
class CohortContext extends CompileContext {
  protected override paramRef(index: number): string {
    return `(${VARS} #>> '{synthetic,${index}}')`;
  }

  override sessionText(name: string): string {
    this.usesSession = true;
    return `(${VARS} #>> ${quoteLiteral(`{session,${jsonPathKey(name)}}`)})`;
  }

  override sessionJson(): string {
    this.usesSession = true;
    return `(${VARS} -> 'session')`;
  }
}

/** A key inside a `#>>` text-array path: quoted when it holds anything but plain characters. */
function jsonPathKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : '"' + key.replace(/["\\]/g, (c) => '\\' + c) + '"';
}

export interface PgMultiplexedStatement extends MultiplexedStatement {
  text: string;
  name: string;
  /** The stream's cursor column, the key of the cohort JSON's `cursor` object. */
  cursorColumn: string | null;
}

export function compileMultiplexed(fields: readonly SubscriptionFieldIR[], options: PgCompileOptions): PgMultiplexedStatement {
  const ctx = new CohortContext(options);
  const streams: string[] = [];
  const from: string[] = [];
  let cursor: { column: string; expr: string } | null = null;
  const pairs = (list: readonly SubscriptionFieldIR[]): JsonPair[] =>
    list.map((f): JsonPair => {
      switch (f.kind) {
        case 'typename':
          return { key: f.key, expr: textLiteral(f.value) };
        case 'namespace':
          return { key: f.key, expr: jsonObjectSql(pairs(f.fields)) };
        case 'root': {
          const alias = ctx.alias();
          const ir = f.ir;
          const level =
            ir.kind === 'aggregate' ? aggregateLevel(ctx, ir.aggregate, null) : selectLevel(ctx, ir.select, null, ir.single ? 'single' : 'list');
          from.push(`(SELECT ${level.expr} AS "root" FROM ${level.from}) AS ${alias}`);
          return { key: f.key, expr: `${alias}."root"` };
        }
        case 'stream': {
          if (cursor !== null) throw errors.notSupported('only one streaming field is allowed in a subscription');
          const alias = ctx.alias();
          const level = streamLevel(ctx, f.ir);
          from.push(`(SELECT ${level.expr} AS "root", ${level.cursor} AS "cursor" FROM ${level.from}) AS ${alias}`);
          cursor = { column: f.ir.cursor.column, expr: `${alias}."cursor"` };
          streams.push(f.key);
          return { key: f.key, expr: `${alias}."root"` };
        }
      }
    });
  const root = jsonObjectSql(pairs(fields));
  const found = cursor as { column: string; expr: string } | null;
  const selectList = `(${root})::text AS "root"` + (found ? `, ${found.expr} AS "cursor"` : '');
  const inner = `SELECT ${selectList}` + (from.length > 0 ? ` FROM ${from.join(', ')}` : '');
  const text =
    `SELECT "__subs"."result_id"::text, "__fld_resp"."root" AS "result"${found ? ', "__fld_resp"."cursor" AS "cursor"' : ''} ` +
    `FROM UNNEST(($1)::uuid[], ($2)::json[]) AS "__subs"("result_id", "result_vars") ` +
    `LEFT OUTER JOIN LATERAL (${inner}) AS "__fld_resp" ON ('true')`;
  const name = statementName(text);
  return { key: name, text, name, params: ctx.params, streaming: found !== null, cursorColumn: found?.column ?? null };
}

/**
 * The rows after the cohort's cursor, in cursor order, `batch_size` of them with ties; the new
 * cursor is the last row's value (MAX ascending, MIN descending), NULL when no row came.
 */
function streamLevel(ctx: CohortContext, ir: StreamIR): { expr: string; from: string; cursor: string } {
  const alias = ctx.alias();
  const needed = new Set<string>([ir.cursor.column]);
  const sel = ir.select;
  const row = fieldsRow(ctx, sel.fields, alias, needed);
  const type = sqlType(ir.cursor.type);
  const column = quoteIdent(ir.cursor.column);
  const cmp = ir.cursor.direction === 'asc' ? '>' : '<';
  const cursorValue = `(${VARS} #>> ${quoteLiteral(`{cursor,${jsonPathKey(ir.cursor.column)}}`)})::${type}`;
  const ordered = {
    ...sel,
    orderBy: [
      {
        expr: { kind: 'column' as const, name: ir.cursor.column, type: ir.cursor.type },
        direction: ir.cursor.direction,
        nulls: ir.cursor.direction === 'asc' ? ('last' as const) : ('first' as const),
      },
    ],
    distinctOn: [],
    limit: ir.batchSize,
    offset: null,
  };
  const base = baseSelect(ctx, ordered, alias, needed, null, {
    exposeOrder: true,
    wholeRow: row.wholeRow,
    withTies: true,
    extraWhere: (a) => `${a}.${column} ${cmp} ${cursorValue}`,
  });
  const agg = ir.cursor.direction === 'asc' ? 'MAX' : 'MIN';
  return {
    expr: `coalesce(json_agg(${row.expr}${base.aggOrder}), '[]')`,
    from: base.from + row.laterals,
    cursor: `(${agg}(${alias}.${column}))::text`,
  };
}
