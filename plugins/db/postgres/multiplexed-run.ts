/**
 * Runs a multiplexed statement for a batch of cohorts: each cohort's values become the text of
 * its JSON (`synthetic`, by position; `session`; `cursor`), and the statement's answer is one row
 * per cohort with its result JSON text (and a stream's next cursor).
 */
import { type CohortInput, type CohortOutput } from '../../../core/sdk/index.js';
import { bindValues } from './sql/bind.js';
import type { PgMultiplexedStatement } from './sql/multiplexed.js';
import type { PgQueryable } from './pool.js';

export async function runMultiplexed(db: PgQueryable, statement: PgMultiplexedStatement, cohorts: readonly CohortInput[]): Promise<CohortOutput[]> {
  const ids: string[] = [];
  const vars: string[] = [];
  for (const c of cohorts) {
    ids.push(c.id);
    vars.push(cohortJson(statement, c));
  }
  const rows = await db.queryTextRows(statement.name, statement.text, [ids, vars]);
  return rows.map((r) => ({ id: r[0]!, result: r[1] ?? 'null', cursor: statement.streaming ? (r[2] ?? null) : null }));
}

export function cohortJson(statement: PgMultiplexedStatement, cohort: CohortInput): string {
  const bound = bindValues(statement.params, cohort.values);
  const out: { session: Readonly<Record<string, string>>; synthetic: Array<string | null>; cursor?: Record<string, string | null> } = {
    session: cohort.session,
    synthetic: bound.map(textOf),
  };
  if (statement.cursorColumn !== null) out.cursor = { [statement.cursorColumn]: textOf(cohort.cursor) };
  return JSON.stringify(out);
}

/** A bound value as PostgreSQL's text input for its type (arrays as array literals). */
export function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return arrayLiteral(v);
  return JSON.stringify(v);
}

function arrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((x) => {
    if (x === null || x === undefined) return 'NULL';
    if (Array.isArray(x)) return arrayLiteral(x);
    const t = textOf(x)!;
    return '"' + t.replace(/["\\]/g, (c) => '\\' + c) + '"';
  });
  return '{' + parts.join(',') + '}';
}
