/**
 * Calls to a remote GraphQL server through the shared outgoing HTTP client (deadline and size
 * cap): introspection when the schema cache is built, and queries when requests run. Failures
 * become the reference engine's `remote-schema-error` messages; the URL is quoted as written in
 * metadata, never with an environment variable's value.
 */
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { EngineError, OutgoingCallError, parseLossless, stringifyLossless, type OutgoingHttp } from '../../../core/sdk/index.js';

export interface RemoteCall {
  url: string;
  /** The URL as written (`{{ENV}}` for url_from_env), for messages. */
  writtenUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface GraphQLAnswer {
  data?: unknown;
  errors?: unknown;
  [key: string]: unknown;
}

/**
 * Posts one GraphQL request. `responseHeaders`, when given, receives the remote's `Set-Cookie`
 * headers: the reference copies them to the client's HTTP response.
 */
export async function postGraphQL(
  http: OutgoingHttp,
  call: RemoteCall,
  body: Record<string, unknown>,
  responseHeaders?: Array<[string, string]>,
): Promise<GraphQLAnswer> {
  let text: string;
  try {
    const res = await http.request({ url: call.url, method: 'POST', headers: call.headers, body: stringifyLossless(body), timeoutMs: call.timeoutMs });
    text = res.body.toString('utf8');
    const cookies = res.headers['set-cookie'];
    if (responseHeaders && cookies !== undefined) {
      for (const c of Array.isArray(cookies) ? cookies : [cookies]) responseHeaders.push(['Set-Cookie', c]);
    }
  } catch (e) {
    const message = e instanceof OutgoingCallError && e.kind === 'timeout' ? 'Response timeout' : (e as Error).message;
    throw new EngineError('remote-schema-error', `HTTP exception occurred while sending the request to ${JSON.stringify(call.writtenUrl)}`, {
      internal: { type: 'http_exception', message },
    });
  }
  let parsed: unknown;
  try {
    // Lossless: a remote's big integers (and keys joined on them) must keep their digits.
    parsed = parseLossless(text);
  } catch {
    throw new EngineError('remote-schema-error', 'Invalid JSON response from remote', { internal: { response: text.slice(0, 1000) } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EngineError('remote-schema-error', 'Invalid response from remote: expected a JSON object', { internal: { response: parsed } });
  }
  return parsed as GraphQLAnswer;
}

/** The `data` of an answer, or the reference's errors for answers without usable data. */
export function answerData(answer: GraphQLAnswer): Record<string, unknown> {
  // Errors are rendered with JSON.stringify: no marked number may reach them.
  const errors: unknown = answer.errors === undefined ? undefined : JSON.parse(stringifyLossless(answer.errors));
  if (errors !== undefined && errors !== null) {
    if (!Array.isArray(errors) || errors.length === 0) throw new EngineError('remote-schema-error', 'Empty "errors" field in response from remote');
    // The remote's own errors reach the client as they came, beside `"data": null`.
    throw new EngineError('remote-schema-error', 'Errors from remote server', { graphqlErrors: errors, internal: { errors } });
  }
  const data = answer.data;
  if (data === undefined || data === null) throw new EngineError('remote-schema-error', 'Missing "data" field with no errors in response from remote');
  if (typeof data !== 'object' || Array.isArray(data)) throw new EngineError('remote-schema-error', 'Invalid "data" field in response from remote');
  return data as Record<string, unknown>;
}

export interface Introspected {
  schema: GraphQLSchema;
  /** The raw answer, served by introspect_remote_schema. */
  raw: GraphQLAnswer;
}

/** Fetches and builds the remote's schema (throws with the reason the schema is inconsistent). */
export async function introspect(http: OutgoingHttp, call: RemoteCall): Promise<Introspected> {
  const raw = await postGraphQL(http, call, { query: getIntrospectionQuery() });
  if (raw.errors !== undefined && raw.errors !== null) {
    throw new EngineError('remote-schema-error', `introspection query to ${call.writtenUrl} has errors`, { internal: raw.errors });
  }
  const data = raw.data as IntrospectionQuery | undefined;
  if (!data || typeof data !== 'object' || !data.__schema) {
    throw new EngineError('remote-schema-error', `the introspection result of ${call.writtenUrl} has no "__schema"`);
  }
  let result = data;
  // A server that names no mutation root but has a `Mutation` type: the reference takes that one.
  if (!data.__schema.mutationType && data.__schema.types.some((t) => t.name === 'Mutation' && t.kind === 'OBJECT')) {
    result = { __schema: { ...data.__schema, mutationType: { name: 'Mutation', kind: 'OBJECT' } as never } };
  }
  try {
    return { schema: buildClientSchema(result), raw };
  } catch (e) {
    throw new EngineError('remote-schema-error', `invalid introspection result from ${call.writtenUrl}: ${(e as Error).message}`);
  }
}
