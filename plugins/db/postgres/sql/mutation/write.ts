/**
 * The writing statements, each inside `WITH "_svc_m" AS (<dml> RETURNING *, <check> AS
 * "check__constraint")`, the reference engine's shape:
 *
 *   INSERT INTO "s"."t" AS "_0" ("a", "b") VALUES ($2::int4, DEFAULT), (...)
 *     [ON CONFLICT ON CONSTRAINT "c" DO NOTHING | DO UPDATE SET "a" = EXCLUDED."a", .. WHERE ..]
 *   UPDATE "s"."t" AS "_0" SET "a" = $2::int4, "n" = "_0"."n" + $3::int4, .. WHERE <filter> AND <where>
 *   DELETE FROM "s"."t" AS "_0" WHERE <filter> AND <where>
 *
 * The check is the role's insert/update `check` over the written row; an upsert that updated
 * (`xmax <> 0`) is held to the update check when the role has one.
 */
import type {
  DeleteIR,
  InsertIR,
  InsertRowIR,
  OnConflictIR,
  TableRef,
  UpdateIR,
  UpdateOpIR,
} from '../../../../../core/sdk/index.js';
import { andSql, boolExpSql } from '../bool-exp.js';
import type { CompileContext } from '../context.js';
import { quoteIdent, quoteTable } from '../quote.js';
import { valueSql } from '../values.js';
import type { StatementContext } from './statement.js';

/** The CTE holding the written rows; `_svc_` names cannot clash with `ctx.alias()` ones. */
export const RESULT = '"_svc_m"';
const CHECK = '"check__constraint"';

export const COUNT_SQL = `(SELECT count(*) FROM ${RESULT})`;
export const CHECK_SQL = `(SELECT coalesce(bool_and(${CHECK}), true) FROM ${RESULT})`;

/**
 * A direct write whose role has a check fails inside the database when the check fails, so that
 * a mutation sent in one round trip (no COMMIT of its own: ./one-trip.ts) is rolled back by the
 * server whatever follows it, without a statement of its own for the check. The failure is a
 * cast of this marker to boolean (SQLSTATE 22P02), evaluated only when the check is false (it
 * depends on the check's value, so the planner cannot fold it); isCheckViolation recognises it
 * and the runner answers the reference engine's permission-error.
 */
const CHECK_VIOLATION_MARKER = 'svc-permission-check-failed';

/** Whether a statement failed because a direct write's check failed (see directWriteSql). */
export function isCheckViolation(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message, where } = e as { code?: unknown; message?: unknown; where?: unknown };
  // `where` is set when the error comes from a function or trigger: user code, not the check.
  return code === '22P02' && where === undefined && typeof message === 'string' && message.includes(CHECK_VIOLATION_MARKER);
}

/** Whether a DML's rows carry a check at all (the role has one): DELETE and unchecked writes say `true`. */
export function dmlChecksRows(dml: string): boolean {
  return !dml.endsWith(`RETURNING *, true AS ${CHECK}`);
}

/** `[output, check]` of a direct write; a checked one fails when the check fails (see above). */
export function directWriteSql(dml: string, output: string, checked: boolean): string {
  if (!checked) return `WITH ${RESULT} AS (${dml}) SELECT (${output})::text, true`;
  const failure = `('${CHECK_VIOLATION_MARKER} ' || "_svc_c"."ok"::text)::boolean`;
  return `WITH ${RESULT} AS (${dml}) SELECT (${output})::text, CASE WHEN "_svc_c"."ok" THEN true ELSE ${failure} END FROM (SELECT ${CHECK_SQL} AS "ok") AS "_svc_c"`;
}

/** `[count, rows as a JSON array, check]` of a write. */
export function writeSql(dml: string): string {
  return `WITH ${RESULT} AS (${dml}) SELECT ${COUNT_SQL}, (SELECT coalesce(json_agg(${RESULT}), '[]') FROM ${RESULT}), ${CHECK_SQL}`;
}

/** A column of the row a slot holds (a JSON array of rows of `table`, one row here). */
export function slotColumnSql(ctx: StatementContext, slot: number, table: TableRef, column: string): string {
  return `(SELECT "_svc_r".${quoteIdent(column)} FROM json_populate_recordset(NULL::${quoteTable(table)}, ${ctx.slot(slot, 'json')}) AS "_svc_r" LIMIT 1)`;
}

const where = (ctx: CompileContext, alias: string, items: Array<UpdateIR['where']>): string =>
  andSql(items.map((e) => (e === null ? 'true' : boolExpSql(ctx, e, { cur: alias, root: alias }))));

/** One row to insert and the values relationships determine for it (column → SQL). */
export interface RowToInsert {
  row: InsertRowIR;
  determined: ReadonlyMap<string, string>;
}

export function insertDml(ctx: CompileContext, ins: InsertIR, rows: RowToInsert[]): string {
  const alias = ctx.alias();
  const columns: string[] = [];
  const values = rows.map(({ row, determined }) => {
    const m = new Map<string, string>();
    for (const c of row.columns) m.set(c.column, valueSql(ctx, c.value));
    // A value a relationship determines wins over a preset (the reference's order too).
    for (const [c, sql] of determined) m.set(c, sql);
    for (const c of m.keys()) if (!columns.includes(c)) columns.push(c);
    return m;
  });
  let body: string;
  if (columns.length > 0) {
    const tuples = values.map((m) => `(${columns.map((c) => m.get(c) ?? 'DEFAULT').join(', ')})`);
    body = `(${columns.map(quoteIdent).join(', ')}) VALUES ${tuples.join(', ')}`;
  } else {
    // Every column takes its default: a zero-column SELECT yields one all-default row each.
    body = rows.length === 1 ? 'DEFAULT VALUES' : `SELECT FROM generate_series(1, ${rows.length})`;
  }
  const conflict = ins.onConflict ? conflictSql(ctx, ins.onConflict, alias) : '';
  return `INSERT INTO ${quoteTable(ins.table)} AS ${alias} ${body}${conflict} RETURNING *, ${insertCheckSql(ctx, ins, alias)} AS ${CHECK}`;
}

function conflictSql(ctx: CompileContext, c: OnConflictIR, alias: string): string {
  const target = c.constraint === null ? ' ON CONFLICT' : ` ON CONFLICT ON CONSTRAINT ${quoteIdent(c.constraint)}`;
  if (c.updateColumns.length === 0) return `${target} DO NOTHING`;
  const sets = new Map<string, string>();
  for (const col of c.updateColumns) sets.set(col, `EXCLUDED.${quoteIdent(col)}`);
  for (const p of c.presets) sets.set(p.column, valueSql(ctx, p.value));
  const assignments = [...sets].map(([col, sql]) => `${quoteIdent(col)} = ${sql}`).join(', ');
  const cond = where(ctx, alias, [c.where]);
  return `${target} DO UPDATE SET ${assignments}${cond === 'true' ? '' : ` WHERE ${cond}`}`;
}

function insertCheckSql(ctx: CompileContext, ins: InsertIR, alias: string): string {
  const check = where(ctx, alias, [ins.check]);
  if (!ins.onConflict || ins.onConflict.updateColumns.length === 0 || ins.updateCheck === null) return check;
  // A row the upsert updated has a non-zero xmax; a freshly inserted one has none.
  return `(CASE WHEN ${alias}."xmax" = 0 THEN ${check} ELSE ${where(ctx, alias, [ins.updateCheck])} END)`;
}

function opSql(ctx: CompileContext, alias: string, op: UpdateOpIR): string {
  // Before valueSql: an unused placeholder would have no type the server could infer.
  if (op.op === '_default') return 'DEFAULT';
  const col = `${alias}.${quoteIdent(op.column)}`;
  const v = valueSql(ctx, op.value);
  switch (op.op) {
    case '_set':
      return v;
    case '_inc':
      return `${col} + ${v}`;
    case '_mul':
      return `${col} * ${v}`;
    case '_append':
      return `${col} || ${v}`;
    case '_prepend':
      return `${v} || ${col}`;
    case '_delete_key':
    case '_delete_elem':
      return `${col} - ${v}`;
    case '_delete_at_path':
      return `${col} #- ${v}`;
  }
}

export function updateDml(ctx: CompileContext, u: UpdateIR): string {
  const alias = ctx.alias();
  const sets = u.ops.map((op) => `${quoteIdent(op.column)} = ${opSql(ctx, alias, op)}`).join(', ');
  const cond = where(ctx, alias, [u.permissionFilter, u.where]);
  const check = where(ctx, alias, [u.check]);
  return `UPDATE ${quoteTable(u.table)} AS ${alias} SET ${sets}${cond === 'true' ? '' : ` WHERE ${cond}`} RETURNING *, ${check} AS ${CHECK}`;
}

export function deleteDml(ctx: CompileContext, d: DeleteIR): string {
  const alias = ctx.alias();
  const cond = where(ctx, alias, [d.permissionFilter, d.where]);
  return `DELETE FROM ${quoteTable(d.table)} AS ${alias}${cond === 'true' ? '' : ` WHERE ${cond}`} RETURNING *, true AS ${CHECK}`;
}
