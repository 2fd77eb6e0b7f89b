/**
 * `POST /v1beta1/relay`: a GraphQL request (or a batch) against the role's Relay schema, answered
 * as `/v1/graphql` answers (errors with HTTP 200, 401 too unless --preserve-401-errors; a body
 * that is not JSON keeps its 415), always as `application/json` (the reference's relay endpoint
 * predates `application/graphql-response+json`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  authenticate,
  graphqlErrorJson,
  parseGraphQLHttpBody,
  readJsonRequest,
  showInternalTo,
  type AuthRequest,
  type ExecutionMeta,
  type GraphQLExecutor,
  type KernelHooks,
  type RawRequest,
  type RawResponse,
  type ServerConfig,
  type Session,
} from '../../../core/sdk/index.js';

export const RELAY_PATH = '/v1beta1/relay';

export async function handleRelay(
  request: RawRequest,
  deps: { hooks: KernelHooks; config: ServerConfig; executor: () => GraphQLExecutor },
): Promise<RawResponse> {
  const { hooks, config } = deps;
  const headers: IncomingHttpHeaders = request.req.headers;
  const auth: AuthRequest = { headers, ip: request.ip, responseHeaders: [] };
  let session: Session | undefined;
  let operationType = '';
  const answer = (status: number, body: string): RawResponse => ({ status, body, contentType: 'application/json', headers: auth.responseHeaders, operationType });
  try {
    const body = parseGraphQLHttpBody(await readJsonRequest(request.req, config.maxRequestBodySize));
    if (!body.batch) auth.body = body.request;
    session = await authenticate(hooks, auth);
    const executor = deps.executor();
    if (!body.batch) {
      const meta: ExecutionMeta = { endpoint: 'relay', ip: request.ip, operationCount: 1, headers, responseHeaders: auth.responseHeaders };
      const out = await executor.execute(body.request, session, meta).finally(() => (operationType = meta.operationType ?? ''));
      return answer(200, out);
    }
    const s = session;
    const meta: ExecutionMeta = { endpoint: 'relay', ip: request.ip, operationCount: body.requests.length, headers, responseHeaders: auth.responseHeaders };
    const parts = await Promise.all(body.requests.map((r) => executor.execute(r, s, meta).catch((e: unknown) => graphqlErrorJson(e, showInternalTo(s, config)).json)));
    operationType = 'batch';
    return answer(200, `[${parts.join(',')}]`);
  } catch (e) {
    const { status, json } = graphqlErrorJson(e, showInternalTo(session, config));
    const keep = status === 415 || (status === 401 && config.preserve401Errors);
    return answer(keep ? status : 200, json);
  }
}
