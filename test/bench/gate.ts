/**
 * The correctness gate, before any timing: every candidate's `data` for the sample variables must
 * equal the reference computed with psql from plain SQL (not the engine's), and the SQL templates
 * pgbench and the Node floor run must give the same. A query that fails is not timed.
 */
import { isDeepStrictEqual } from 'node:util';
import { run } from './proc.js';
import { literalSql } from './sql-template.js';
import { rootField, type BenchQuery, type Vars } from './queries.js';
import type { PlanSummary } from './results.js';

export async function psqlJson(url: string, sql: string): Promise<unknown> {
  const out = await run('psql', [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
  return JSON.parse(out.stdout);
}

export interface HttpCandidate {
  name: string;
  url: string;
  /** The GraphQL text this candidate is sent for a query; null when it has no equivalent. */
  queryFor(q: BenchQuery): string | null;
  /** Static headers; a query run as `user` also gets `x-svc-user-id` from its variable. */
  headersFor(q: BenchQuery): Record<string, string>;
  /** `__typename` of the query root, which differs between servers. */
  queryRootName: string;
}

export async function ask(c: HttpCandidate, q: BenchQuery, vars: Vars): Promise<unknown> {
  const query = c.queryFor(q);
  const headers = q.userIdVar ? { ...c.headersFor(q), 'x-svc-user-id': String(vars[q.userIdVar]) } : c.headersFor(q);
  const res = await fetch(c.url, { method: 'POST', headers, body: JSON.stringify({ query, variables: vars }) });
  const text = await res.text();
  if (res.status < 200 || res.status > 299 || text.includes('"errors"')) throw new Error(`${c.name} ${q.id}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: unknown }).data;
}

/** The id an insert answered, whatever the shape around it. */
function insertedId(data: unknown): number | undefined {
  const root = (data as Record<string, Record<string, unknown>> | null)?.['insert_article_one'];
  const id = root?.['id'] ?? (root?.['article'] as Record<string, unknown> | undefined)?.['id'];
  return typeof id === 'number' ? id : undefined;
}

async function checkInsert(dbUrl: string, data: unknown, vars: Vars): Promise<string | null> {
  const id = insertedId(data);
  if (id === undefined) return `no id in ${JSON.stringify(data)}`;
  const row = await psqlJson(dbUrl, `SELECT row_to_json(a) FROM (SELECT author_id, title, body, rating FROM article WHERE id = ${id}) a`);
  const want = { author_id: vars['a'], title: vars['t'], body: vars['b'], rating: 3 };
  return isDeepStrictEqual(row, want) ? null : `inserted row ${JSON.stringify(row)}, expected ${JSON.stringify(want)}`;
}

/** Q8: the answer is the row as it now is, with the new name. */
async function checkUpdate(dbUrl: string, data: unknown, vars: Vars): Promise<string | null> {
  const got = (data as Record<string, unknown> | null)?.['update_author_by_pk'];
  const row = await psqlJson(dbUrl, `SELECT json_build_object('id', id, 'name', name) FROM author WHERE id = ${Number(vars['id'])}`);
  const want = { id: vars['id'], name: vars['n'] };
  if (!isDeepStrictEqual(row, want)) return `updated row ${JSON.stringify(row)}, expected ${JSON.stringify(want)}`;
  return isDeepStrictEqual(got, want) ? null : `answered ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
}

const checkWrite = (q: BenchQuery, dbUrl: string, data: unknown, vars: Vars): Promise<string | null> =>
  rootField(q) === 'update_author_by_pk' ? checkUpdate(dbUrl, data, vars) : checkInsert(dbUrl, data, vars);

/** Null when the candidate passes; otherwise what differed. */
export async function gateHttp(dbUrl: string, c: HttpCandidate, q: BenchQuery): Promise<string | null> {
  for (const vars of q.samples) {
    let data: unknown;
    try {
      data = await ask(c, q, vars);
    } catch (e) {
      return (e as Error).message;
    }
    if (q.mutation) {
      const problem = await checkWrite(q, dbUrl, data, vars);
      if (problem) return problem;
      continue;
    }
    const expected = q.reference ? await psqlJson(dbUrl, q.reference(vars)) : { __typename: c.queryRootName };
    if (!isDeepStrictEqual(data, expected)) {
      return `${JSON.stringify(vars)}: got ${JSON.stringify(data).slice(0, 200)}, expected ${JSON.stringify(expected).slice(0, 200)}`;
    }
  }
  return null;
}

/** The SQL template (engine's SQL or Q6's hand-written insert) against the reference. */
export async function gateTemplate(dbUrl: string, q: BenchQuery, template: string): Promise<string | null> {
  for (const vars of q.samples) {
    if (q.mutation) {
      const sql = literalSql(template, { ...vars, n: 1 });
      const out = await run('psql', [dbUrl, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', 'BEGIN', '-c', sql, '-c', 'ROLLBACK']);
      if (typeof insertedId({ insert_article_one: JSON.parse(out.stdout) }) !== 'number') return `insert gave ${out.stdout}`;
      continue;
    }
    if (!q.reference) continue;
    const [got, expected] = await Promise.all([psqlJson(dbUrl, literalSql(template, vars)), psqlJson(dbUrl, q.reference(vars))]);
    const want = (expected as Record<string, unknown>)[rootField(q)];
    if (!isDeepStrictEqual(got, want)) return `${JSON.stringify(vars)}: SQL gave ${JSON.stringify(got).slice(0, 200)}, expected ${JSON.stringify(want).slice(0, 200)}`;
  }
  return null;
}

interface ExplainJson {
  Plan: { 'Total Cost': number };
  'Execution Time': number;
  JIT?: { Timing?: { Total?: number } };
}

/**
 * The plan of the engine's SQL for the first sample, under the cluster's own settings: with
 * PostgreSQL defaults, a statement whose estimate crosses `jit_above_cost` is JIT-compiled on
 * every execution, which the run's figures alone would not explain.
 */
export async function planOf(dbUrl: string, q: BenchQuery, template: string): Promise<PlanSummary> {
  const [plan] = (await psqlJson(dbUrl, `EXPLAIN (ANALYZE, FORMAT JSON) ${literalSql(template, q.samples[0]!)}`)) as ExplainJson[];
  return {
    totalCost: plan!.Plan['Total Cost'],
    jit: plan!.JIT !== undefined,
    jitMs: plan!.JIT?.Timing?.Total ?? null,
    executionMs: plan!['Execution Time'],
  };
}
