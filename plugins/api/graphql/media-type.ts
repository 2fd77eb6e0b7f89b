/**
 * The response media type of a GraphQL-over-HTTP exchange, from the request's `Accept`:
 * `application/graphql-response+json` when the client prefers it (then the HTTP status follows
 * the GraphQL-over-HTTP spec: a response without `data` has the error's 4xx/5xx status), else
 * `application/json` with the engine's usual statuses. Most clients send no Accept or a plain one,
 * which costs one substring test.
 */
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const APPLICATION_JSON = 'application/json';

export type GraphQLMediaType = typeof GRAPHQL_RESPONSE_JSON | typeof APPLICATION_JSON;

export function responseMediaType(accept: string | undefined): GraphQLMediaType {
  if (accept === undefined || !accept.includes('graphql-response+json')) return APPLICATION_JSON;
  let best: GraphQLMediaType = APPLICATION_JSON;
  let bestQ = -1;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.split(';');
    const type = rawType!.trim().toLowerCase();
    const candidate: GraphQLMediaType | undefined =
      type === GRAPHQL_RESPONSE_JSON ? GRAPHQL_RESPONSE_JSON : type === APPLICATION_JSON || type === 'application/*' || type === '*/*' ? APPLICATION_JSON : undefined;
    if (!candidate) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    // Equal preference: the GraphQL media type wins (the spec's recommendation).
    if (q > bestQ || (q === bestQ && candidate === GRAPHQL_RESPONSE_JSON)) {
      best = candidate;
      bestQ = q;
    }
  }
  return best;
}
