/**
 * Calling an action's handler (reference notes §5, runtime notes §5): POST
 * `{action: {name}, input, session_variables, request_query}` through the shared outgoing client
 * and the webhook core (request and response transforms apply). Headers: the client's own when
 * `forward_client_headers` (without the hop-by-hop and content ones and every `x-svc-*`), then
 * `Content-Type` and `User-Agent`, then the configured ones; the first of a name wins. The answer
 * becomes the output JSON (2xx), the handler's own GraphQL error (4xx `{message, extensions?,
 * code?}`), or `unexpected` with the exchange in `internal` (for admins only).
 */
import {
  parseLossless,
  deliverWebhook,
  EngineError,
  USER_AGENT,
  type DeliveryResult,
  type Json,
  type OutgoingHttp,
  type ResolvedHeader,
  type WebhookSpec,
} from '../../../core/sdk/index.js';

/** Client headers never forwarded (as for remote schemas), besides every `x-svc-*`. */
const NOT_FORWARDED = new Set([
  'content-length', 'content-md5', 'user-agent', 'host', 'origin', 'referer', 'accept', 'accept-encoding', 'accept-language',
  'accept-datetime', 'cache-control', 'connection', 'dnt', 'content-type',
]);

export type ClientHeaders = Readonly<Record<string, string | string[] | undefined>>;

export function forwardedHeaders(headers: ClientHeaders | undefined): ResolvedHeader[] {
  const out: ResolvedHeader[] = [];
  for (const [raw, value] of Object.entries(headers ?? {})) {
    const name = raw.toLowerCase();
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('x-svc-')) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: v });
  }
  const first = (n: string): string | undefined => {
    const v = headers?.[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const host = first('host');
  const agent = first('user-agent');
  const origin = first('origin');
  if (host) out.push({ name: 'X-Forwarded-Host', value: host });
  if (agent) out.push({ name: 'X-Forwarded-User-Agent', value: agent });
  if (origin) out.push({ name: 'X-Forwarded-Origin', value: origin });
  return out;
}

/** Forwarded, then defaults, then configured; the first header of a name wins. */
export function handlerHeaders(forwarded: readonly ResolvedHeader[], configured: readonly ResolvedHeader[]): ResolvedHeader[] {
  const seen = new Set<string>();
  const out: ResolvedHeader[] = [];
  for (const h of [...forwarded, { name: 'Content-Type', value: 'application/json' }, { name: 'User-Agent', value: USER_AGENT }, ...configured]) {
    const key = h.name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
  }
  return out;
}

export interface HandlerCall {
  http: OutgoingHttp;
  webhook: WebhookSpec;
  actionName: string;
  input: Json;
  sessionVariables: Readonly<Record<string, string>>;
  requestQuery: string | null;
  forwarded: readonly ResolvedHeader[];
  signal?: AbortSignal;
}

/** What an admin sees in `internal`: the error and the exchange. */
function detail(error: string, url: string, r: DeliveryResult): Json {
  const response =
    r.response.type === 'webhook_response'
      ? { status: r.response.data.status, headers: r.response.data.headers as unknown as Json, body: parseOrText(r.response.data.body) }
      : null;
  return { error, request: { url, headers: r.request.headers as unknown as Json, body: r.request.payload }, response };
}

function parseOrText(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The handler's 2xx JSON, or throws the error the client sees. */
export async function callHandler(c: HandlerCall): Promise<Json> {
  const spec: WebhookSpec = { ...c.webhook, headers: handlerHeaders(c.forwarded, c.webhook.headers) };
  const payload: Json = {
    action: { name: c.actionName },
    input: c.input,
    session_variables: c.sessionVariables as Json,
    request_query: c.requestQuery,
  };
  const r = await deliverWebhook({ http: c.http, spec, payload, sessionVariables: c.sessionVariables, logVersion: '2', ...(c.signal ? { signal: c.signal } : {}) });
  if (r.response.type === 'client_error') {
    const message = r.response.data.message;
    if (r.status !== null) throw new EngineError('unexpected', 'Response Transformation Failed', { status: 500, path: '$', internal: detail(message, spec.url, r) });
    if (message.startsWith('request transform failed')) throw new EngineError('unexpected', 'Request Transformation Failed', { status: 500, path: '$', internal: detail(message, spec.url, r) });
    throw new EngineError('unexpected', 'http exception when calling webhook', { path: '$', internal: detail(message, spec.url, r) });
  }
  const status = r.response.data.status;
  const body = r.response.data.body;
  let json: unknown;
  try {
    // Lossless: a bigint id beyond 2^53 must still match its row (lossless-json.ts).
    json = body === '' ? undefined : parseLossless(body);
  } catch {
    json = undefined;
  }
  if (status >= 200 && status < 300) {
    if (json === undefined) throw new EngineError('unexpected', 'not a valid json response from webhook', { path: '$', internal: detail('invalid JSON', spec.url, r) });
    return json as Json;
  }
  if (status >= 400 && status < 500) {
    if (!isObject(json) || typeof json['message'] !== 'string') {
      throw new EngineError('unexpected', 'internal error', { path: '$', internal: detail(`expecting {"message": ..., "extensions": ...} in a ${status} response`, spec.url, r) });
    }
    const extensions = isObject(json['extensions'])
      ? (json['extensions'] as Record<string, unknown>)
      : { path: '$', code: typeof json['code'] === 'string' ? json['code'] : 'unexpected' };
    throw new EngineError('unexpected', json['message'], { status, path: '$', extensions });
  }
  throw new EngineError('unexpected', 'internal error', { path: '$', internal: detail(`expecting 2xx or 4xx status code, but found ${status}`, spec.url, r) });
}
