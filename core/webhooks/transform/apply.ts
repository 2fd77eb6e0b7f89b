/**
 * Applies compiled transforms to an outgoing webhook request and to its response. Every part of a
 * request transform sees the ORIGINAL request (`$body`, `$query_params`, `$base_url`,
 * `$session_variables`), as in the reference engine; the parts are then applied together.
 * Failures collect into one TransformError listing each problem in the reference's error shape.
 */
import { KritiError, renderInString, type Json, type KritiErrorJson, type KritiTemplate } from '../kriti/index.js';
import { FORM_CONTENT_TYPE, type CompiledBody, type CompiledRequestTransform, type CompiledResponseTransform } from './definition.js';

export interface WebhookRequest {
  method: string;
  url: string;
  /** In order; names as given (compared case-insensitively). */
  headers: Array<[string, string]>;
  /** The body text, or null for none. */
  body: string | null;
}

export type TransformErrorJson = KritiErrorJson | { error_code: 'TransformationError'; message: string };

export class TransformError extends Error {
  constructor(readonly errors: TransformErrorJson[]) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'TransformError';
  }
}

export interface RequestTransformContext {
  /** The request payload as JSON (null when there is none). */
  body: Json;
  sessionVariables: Readonly<Record<string, string>> | null;
  /** The webhook URL as configured, environment resolved. */
  baseUrl: string;
}

export interface ResponseTransformContext {
  body: Json;
  request: Json;
  status: number;
  sessionVariables: Readonly<Record<string, string>> | null;
}

class Renderer {
  readonly errors: TransformErrorJson[] = [];

  constructor(
    private readonly variables: Record<string, Json>,
    private readonly session: Readonly<Record<string, string>> | null,
  ) {}

  render(t: KritiTemplate | undefined): Json | undefined {
    if (!t) return undefined;
    try {
      return t.render({ variables: this.variables, session: this.session });
    } catch (e) {
      if (e instanceof KritiError) this.errors.push(e.toJSON());
      else throw e;
      return undefined;
    }
  }

  problem(message: string): undefined {
    this.errors.push({ error_code: 'TransformationError', message });
    return undefined;
  }

  /** Query and header values: strings, numbers and booleans read as text; null drops the entry. */
  scalar(t: KritiTemplate): string | null | undefined {
    const v = this.render(t);
    if (v === undefined || v === null) return v === null ? null : undefined;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.problem('Template must produce a String, Number, or Boolean value');
  }
}

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function encodeForm(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

function renderBody(body: CompiledBody, r: Renderer, formV1: boolean): string | null | undefined {
  switch (body.action) {
    case 'remove':
      return null;
    case 'transform': {
      const v = r.render(body.template);
      if (v === undefined) return undefined;
      if (!formV1) return JSON.stringify(v);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return r.problem('a form-encoded body must be a JSON object');
      return encodeForm(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, renderInString(x)]));
    }
    case 'x_www_form_urlencoded': {
      const pairs: Array<[string, string]> = [];
      for (const [k, t] of body.form ?? []) {
        const v = r.scalar(t);
        if (typeof v === 'string') pairs.push([k, v]);
      }
      return encodeForm(pairs);
    }
  }
}

function renderQuery(t: CompiledRequestTransform['queryParams'], r: Renderer): string | undefined {
  if (t === undefined) return undefined;
  if (!Array.isArray(t)) {
    const v = r.render(t);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return r.problem('Template must produce a String, Number, or Boolean value');
    return v.replace(/^\?/, '');
  }
  const parts: string[] = [];
  for (const [kt, vt] of t) {
    const k = r.scalar(kt);
    if (typeof k !== 'string') continue;
    if (vt === null) {
      parts.push(encodeURIComponent(k));
      continue;
    }
    const v = r.scalar(vt);
    if (typeof v === 'string') parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  }
  return parts.join('&');
}

export function applyRequestTransform(t: CompiledRequestTransform, req: WebhookRequest, ctx: RequestTransformContext): WebhookRequest {
  let original: URL | null = null;
  try {
    original = new URL(req.url);
  } catch {
    original = null;
  }
  const queryPairs: Json = original ? [...original.searchParams.entries()].map(([k, v]) => [k, v]) : [];
  const r = new Renderer(
    { $body: ctx.body, $session_variables: ctx.sessionVariables ?? null, $query_params: queryPairs, $base_url: ctx.baseUrl },
    ctx.sessionVariables,
  );

  let url = req.url;
  if (t.url) {
    const v = r.render(t.url);
    if (v !== undefined) {
      if (typeof v !== 'string') r.problem(`URL Transforms must produce a JSON String: ${JSON.stringify(v)}`);
      else if (!URL.canParse(v)) r.problem(`Invalid URL: ${v}`);
      else url = v;
    }
  }
  const query = renderQuery(t.queryParams, r);
  if (query !== undefined) {
    const u = new URL(url);
    u.search = query;
    url = u.toString();
  }

  let headers = req.headers.filter(([name]) => !t.removeHeaders.some((x) => sameName(x, name)));
  for (const [name, vt] of t.addHeaders) {
    const v = r.scalar(vt);
    if (typeof v === 'string') headers.push([name, v]);
  }
  const formV1 = t.contentType === FORM_CONTENT_TYPE;
  if (t.contentType) headers = [...headers.filter(([n]) => !sameName(n, 'content-type')), ['Content-Type', t.contentType]];

  let body = req.body;
  if (t.body) {
    const rendered = renderBody(t.body, r, formV1);
    if (rendered !== undefined) body = rendered;
  }
  if (r.errors.length > 0) throw new TransformError(r.errors);
  return { method: t.method ?? req.method, url, headers, body };
}

/** The response body after `response_transform` (JSON text, form text, or null). */
export function applyResponseTransform(t: CompiledResponseTransform, bodyText: string | null, ctx: ResponseTransformContext): string | null {
  if (!t.body) return bodyText;
  const r = new Renderer(
    { $body: ctx.body, $request: ctx.request, $response: { status: ctx.status }, $session_variables: ctx.sessionVariables ?? null },
    ctx.sessionVariables,
  );
  const out = renderBody(t.body, r, false);
  if (r.errors.length > 0 || out === undefined) throw new TransformError(r.errors);
  return out;
}

/** Parses a body as JSON for `$body`; anything else reads as null. */
export function bodyAsJson(text: string | null): Json {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return null;
  }
}
