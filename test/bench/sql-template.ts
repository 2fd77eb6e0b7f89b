/**
 * The engine's own SQL for pgbench and the Node floor. The explain API gives it with parameters
 * written as literals; the bench asks with a sentinel value per variable and turns each sentinel
 * literal back into a named hole (`{{id}}`), then renders the holes as pgbench `:id` variables
 * or as positional `$n` parameters.
 */
import { ADMIN_HEADERS, postJson } from './engine-process.js';
import type { BenchQuery, Vars } from './queries.js';

const SENTINEL_BASE = 987_001;

export function sentinels(q: BenchQuery): Vars {
  const out: Vars = {};
  q.vars.forEach((v, i) => (out[v.name] = v.kind === 'int' ? SENTINEL_BASE + i : `sentinel-${i}`));
  return out;
}

/** The engine's SQL for a query, as a template with `{{var}}` holes. */
export async function engineSqlTemplate(engineUrl: string, q: BenchQuery): Promise<string> {
  const variables = sentinels(q);
  const user: Record<string, string> = q.userIdVar ? { 'x-svc-role': 'user', 'x-svc-user-id': String(variables[q.userIdVar]) } : {};
  const res = await postJson(engineUrl + '/v1/graphql/explain', { query: { query: q.graphql, variables }, user }, ADMIN_HEADERS);
  if (res.status !== 200 || !Array.isArray(res.body) || res.body.length !== 1 || typeof res.body[0].sql !== 'string') {
    throw new Error(`${q.id}: the explain API did not give one SQL statement: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  let sql: string = res.body[0].sql;
  if (q.userIdVar) {
    // pgbench variables are numbers only, so the session JSON is built in SQL around the variable.
    const session = /'\{"x-svc-[^']*\}'/g;
    if (!session.test(sql)) throw new Error(`${q.id}: no session literal in the engine's SQL`);
    sql = sql.replace(session, `json_build_object('x-svc-role', 'user', 'x-svc-user-id', ({{${q.userIdVar}}})::text)::text`);
  }
  for (const [name, value] of Object.entries(variables)) {
    const literal = `'${value}'`;
    if (!sql.includes(literal)) throw new Error(`${q.id}: variable ${name} is not a parameter of the engine's SQL`);
    sql = sql.split(literal).join(`{{${name}}}`);
  }
  return sql.replace(/\s+/g, ' ').trim();
}

const HOLE = /\{\{(\w+)\}\}/g;

export function pgbenchSql(template: string): string {
  return template.replace(HOLE, (_, name: string) => `:${name}`);
}

/** `$1..$n` in order of first use, and the variable each one takes. */
export function positionalSql(template: string): { text: string; args: string[] } {
  const args: string[] = [];
  const text = template.replace(HOLE, (_, name: string) => {
    let i = args.indexOf(name);
    if (i < 0) i = args.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text, args };
}

/** The template with values written in, to check it against the reference with psql. */
export function literalSql(template: string, vars: Vars): string {
  return template.replace(HOLE, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`no value for {{${name}}}`);
    return `'${String(v).replace(/'/g, "''")}'`;
  });
}
