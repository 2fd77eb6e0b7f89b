/**
 * A mutation's answer as one JSON expression over the affected rows (a CTE): the
 * `<t>_mutation_response` object (`json_build_object('affected_rows', .., 'returning', ..)`) or,
 * for `_one`/`_by_pk`, the single row or `null`. Rows go through the read compiler's select
 * level, so `returning` gets relationships, nested permission filters and number stringifying
 * exactly as queries do; the role's select filter restricts which affected rows are shown.
 */
import {
  type FieldIR,
  type MutationOutputIR,
  type MutationReturnIR,
  returningSelect,
  type TableRef,
} from '../../../../../core/sdk/index.js';
import type { CompileContext } from '../context.js';
import { jsonObjectSql, textLiteral, type JsonPair } from '../json-object.js';
import { selectLevel } from '../select.js';

/**
 * The answer's JSON over the rows of `from` (a CTE name); `affected` gives the SQL of the
 * affected row count (it can exceed the rows of `from`: nested inserts count too). It is only
 * called when the count is selected: an unreferenced placeholder would have no type.
 */
export function outputSql(ctx: CompileContext, table: TableRef, ret: MutationReturnIR, from: string, affected: () => string): string {
  const out = ret.output;
  if (out.kind === 'single') {
    const level = selectLevel(ctx, returningSelect(table, ret, out.fields), null, 'single', from);
    return `(SELECT ${level.expr} FROM ${level.from})`;
  }
  const pairs = out.fields.map((f): JsonPair => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, expr: textLiteral(f.typeName) };
      case 'affectedRows':
        return { key: f.alias, expr: affected() };
      case 'returning': {
        const level = selectLevel(ctx, returningSelect(table, ret, f.fields), null, 'list', from);
        return { key: f.alias, expr: `(SELECT ${level.expr} FROM ${level.from})` };
      }
    }
  });
  return jsonObjectSql(pairs);
}

/** Whether the answer reads other rows than the affected ones (relationships). */
export function readsRelationships(out: MutationOutputIR): boolean {
  const has = (fields: FieldIR[]): boolean => fields.some((f) => f.kind !== 'column' && f.kind !== 'typename');
  return out.kind === 'single' ? has(out.fields) : out.fields.some((f) => f.kind === 'returning' && has(f.fields));
}

/** The answer when nothing was written: no rows, nothing affected. */
export function emptyOutputJson(out: MutationOutputIR): string {
  if (out.kind === 'single') return 'null';
  const body: Record<string, unknown> = {};
  for (const f of out.fields) body[f.alias] = f.kind === 'typename' ? f.typeName : f.kind === 'affectedRows' ? 0 : [];
  return JSON.stringify(body);
}
