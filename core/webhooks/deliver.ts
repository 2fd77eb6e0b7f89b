/**
 * One webhook call as event and scheduled triggers make it: the request built from the payload,
 * the default and configured headers and the request transform; the call through the shared
 * outgoing client (deadline + size cap); and the invocation-log records in the reference's shape
 * (`{payload, headers, version}` / `{type: webhook_response | client_error, data, version}`).
 * Kind-neutral: it knows nothing of tables or schedules.
 */
import { OutgoingCallError, type OutgoingHttp } from '../http/outgoing.js';
import { ENGINE_VERSION } from '../version.js';
import type { Json } from './kriti/index.js';
import type { ResolvedHeader } from './headers.js';
import type { CompiledRequestTransform, CompiledResponseTransform } from './transform/definition.js';
import { applyRequestTransform, applyResponseTransform, bodyAsJson, TransformError, type WebhookRequest } from './transform/apply.js';
import { parseRetryAfter } from './retry.js';

export const USER_AGENT = `svc-graphql-engine/${ENGINE_VERSION}`;

export interface WebhookSpec {
  /** Resolved URL (environment applied). */
  url: string;
  headers: readonly ResolvedHeader[];
  requestTransform?: CompiledRequestTransform;
  responseTransform?: CompiledResponseTransform;
  timeoutMs: number;
}

export interface HeaderLog {
  name: string;
  value: string;
}

export interface InvocationRequestLog {
  payload: Json;
  headers: HeaderLog[];
  version: string;
}

export type InvocationResponseLog =
  | { type: 'webhook_response'; data: { body: string; headers: HeaderLog[]; status: number }; version: string }
  | { type: 'client_error'; data: { message: string }; version: string };

export interface DeliveryResult {
  /** 2xx answer. */
  ok: boolean;
  /** HTTP status, null when no answer came (transport error, timeout, transform failure). */
  status: number | null;
  /** Seconds from a `Retry-After` header of a failed answer. */
  retryAfter: number | null;
  request: InvocationRequestLog;
  response: InvocationResponseLog;
  elapsedMs: number;
}

/** The request before any transform: POST, JSON body, default headers then configured ones. */
export function baseRequest(spec: WebhookSpec, payload: Json): WebhookRequest {
  const configured = spec.headers.map((h): [string, string] => [h.name, h.value]);
  const has = (name: string) => configured.some(([n]) => n.toLowerCase() === name);
  const defaults: Array<[string, string]> = [];
  if (!has('content-type')) defaults.push(['Content-Type', 'application/json']);
  if (!has('user-agent')) defaults.push(['User-Agent', USER_AGENT]);
  return { method: 'POST', url: spec.url, headers: [...defaults, ...configured], body: JSON.stringify(payload) };
}

function headerLog(headers: Record<string, string | string[] | undefined>): HeaderLog[] {
  return Object.entries(headers).flatMap(([name, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((value) => ({ name, value }))));
}

function clientErrorMessage(e: unknown): string {
  if (e instanceof TransformError) return `request transform failed: ${e.message}`;
  if (e instanceof OutgoingCallError) {
    if (e.kind === 'timeout') return `Response timeout: ${e.message}`;
    return `http exception when calling webhook: ${e.message}`;
  }
  return `http exception when calling webhook: ${e instanceof Error ? e.message : String(e)}`;
}

export interface DeliverOptions {
  http: OutgoingHttp;
  spec: WebhookSpec;
  payload: Json;
  sessionVariables: Readonly<Record<string, string>> | null;
  /** Invocation-log version: "2" for event triggers, "1" for scheduled ones. */
  logVersion: string;
  signal?: AbortSignal;
}

/** Never throws: every failure becomes a `client_error` result. */
export async function deliverWebhook(o: DeliverOptions): Promise<DeliveryResult> {
  const started = performance.now();
  let req = baseRequest(o.spec, o.payload);
  const requestLog = (r: WebhookRequest): InvocationRequestLog => ({
    payload: r.body === null ? null : (bodyAsJson(r.body) ?? r.body),
    headers: r.headers.map(([name, value]) => ({ name, value })),
    version: o.logVersion,
  });
  const failed = (e: unknown): DeliveryResult => ({
    ok: false,
    status: null,
    retryAfter: null,
    request: requestLog(req),
    response: { type: 'client_error', data: { message: clientErrorMessage(e) }, version: o.logVersion },
    elapsedMs: performance.now() - started,
  });
  try {
    if (o.spec.requestTransform) {
      req = applyRequestTransform(o.spec.requestTransform, req, { body: o.payload, sessionVariables: o.sessionVariables, baseUrl: o.spec.url });
    }
  } catch (e) {
    return failed(e);
  }
  let res;
  try {
    res = await o.http.request({
      url: req.url,
      method: req.method as 'POST',
      headers: Object.fromEntries(groupHeaders(req.headers)),
      ...(req.body === null ? {} : { body: req.body }),
      timeoutMs: o.spec.timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (e) {
    return failed(e);
  }
  let body = res.body.toString('utf8');
  const ok = res.status >= 200 && res.status < 300;
  if (o.spec.responseTransform) {
    try {
      body = applyResponseTransform(o.spec.responseTransform, body, {
        body: bodyAsJson(body),
        request: requestLog(req).payload,
        status: res.status,
        sessionVariables: o.sessionVariables,
      }) ?? '';
    } catch (e) {
      return { ...failed(e), status: res.status };
    }
  }
  return {
    ok,
    status: res.status,
    retryAfter: ok ? null : parseRetryAfter(res.headers['retry-after']),
    request: requestLog(req),
    response: { type: 'webhook_response', data: { body, headers: headerLog(res.headers), status: res.status }, version: o.logVersion },
    elapsedMs: performance.now() - started,
  };
}

/** Several headers of one name go out as several values. */
function groupHeaders(headers: ReadonlyArray<[string, string]>): Map<string, string | string[]> {
  const out = new Map<string, string | string[]>();
  for (const [name, value] of headers) {
    const key = [...out.keys()].find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
    const prev = out.get(key);
    out.set(key, prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]);
  }
  return out;
}
