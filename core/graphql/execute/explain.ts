/**
 * The explain API: for each root field of a query, the SQL the engine would run (parameters
 * written in as literals) and the database's plan for it. Planning is the executor's own, so the
 * SQL shown is exactly what a request with the same text, variables and session runs.
 */
import { EngineError } from '../../errors.js';
import { ADMIN_ROLE, makeSession, type Session } from '../../auth/session.js';
import type { GraphQLExecutor } from './executor.js';
import { parseGraphQLRequest, type GraphQLRequest } from './request.js';

export interface ExplainRequest {
  request: GraphQLRequest;
  /** Session variables to explain as (`x-svc-role` picks the role; admin without it). */
  user: Record<string, string>;
}

export interface ExplainedField {
  field: string;
  sql: string | null;
  plan: string[] | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Accepts the reference's body, `{query: {query, variables, operationName}, user}`, and the plain
 * GraphQL request body, `{query, variables, operationName, user}`.
 */
export function parseExplainBody(body: unknown): ExplainRequest {
  if (!isObject(body)) throw new EngineError('parse-failed', 'expected Object', { path: '$' });
  const wrapped = isObject(body['query']);
  const request = wrapped ? parseGraphQLRequest(body['query'], '$.query') : parseGraphQLRequest(body);
  const rawUser = body['user'] ?? {};
  if (!isObject(rawUser)) throw new EngineError('parse-failed', 'expected Object for "user"', { path: '$.user' });
  const user: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawUser)) {
    if (typeof value !== 'string') throw new EngineError('parse-failed', 'expected String', { path: `$.user.${name}` });
    user[name.toLowerCase()] = value;
  }
  return { request, user };
}

export function explainSession(user: Record<string, string>): Session {
  return makeSession(user['x-svc-role'] ?? ADMIN_ROLE, user);
}

export async function explainRequest(executor: GraphQLExecutor, explain: ExplainRequest): Promise<ExplainedField[]> {
  const plan = await executor.plan(explain.request, explainSession(explain.user));
  if (plan.kind !== 'query') {
    const message = plan.kind === 'mutation' ? 'only queries can be explained' : 'subscriptions cannot be explained';
    throw new EngineError(plan.kind === 'mutation' ? 'invalid-params' : 'not-supported', message, { path: '$' });
  }
  const out: ExplainedField[] = [];
  // One at a time: an explain is an admin's diagnostic, not worth several pool connections.
  for (const { field, db } of plan.fields) {
    if (!db) {
      out.push({ field, sql: null, plan: null });
      continue;
    }
    if (!db.connection.explainQuery) {
      throw new EngineError('not-supported', `fields of ${db.connection.kind} sources cannot be explained`, { path: '$' });
    }
    const { sql, plan: lines } = await db.connection.explainQuery(db.statement, db.sessionJson, db.values);
    out.push({ field, sql, plan: lines });
  }
  return out;
}
