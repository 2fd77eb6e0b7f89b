/**
 * Reads GraphQL-over-HTTP requests: a POST body that is one request object or a batch (a JSON
 * array), or a GET with `query`, `variables` (JSON text) and `operationName` parameters.
 */
import { EngineError } from '../../errors.js';

export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

export type GraphQLHttpRequest = { batch: false; request: GraphQLRequest } | { batch: true; requests: GraphQLRequest[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseGraphQLRequest(value: unknown, path = '$'): GraphQLRequest {
  if (!isObject(value)) throw new EngineError('parse-failed', 'expected Object for a GraphQL request', { path });
  const query = value['query'];
  if (typeof query !== 'string') {
    throw new EngineError('parse-failed', query === undefined ? 'key "query" not found' : 'expected String for "query"', {
      path: query === undefined ? path : `${path}.query`,
    });
  }
  const variables = value['variables'] ?? {};
  if (!isObject(variables)) throw new EngineError('parse-failed', 'expected Object for "variables"', { path: `${path}.variables` });
  const operationName = value['operationName'] ?? null;
  if (operationName !== null && typeof operationName !== 'string') {
    throw new EngineError('parse-failed', 'expected String for "operationName"', { path: `${path}.operationName` });
  }
  return { query, variables, operationName };
}

export function parseGraphQLHttpBody(body: unknown): GraphQLHttpRequest {
  if (Array.isArray(body)) {
    return { batch: true, requests: body.map((item, i) => parseGraphQLRequest(item, `$[${i}]`)) };
  }
  return { batch: false, request: parseGraphQLRequest(body) };
}

export function parseGraphQLQueryString(params: Record<string, string | string[] | undefined>): GraphQLRequest {
  const one = (k: string): string | undefined => {
    const v = params[k];
    return Array.isArray(v) ? v[0] : v;
  };
  let variables: unknown = {};
  const rawVariables = one('variables');
  if (rawVariables) {
    try {
      variables = JSON.parse(rawVariables);
    } catch {
      throw new EngineError('parse-failed', 'variables is not valid JSON', { path: '$.variables' });
    }
  }
  return parseGraphQLRequest({ query: one('query'), variables, operationName: one('operationName') ?? null });
}
