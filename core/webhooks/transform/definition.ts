/**
 * `request_transform` / `response_transform` as written in metadata: parsed with the reference's
 * messages, defaults filled in (`version` 1, `template_engine` "Kriti") so that export shows what
 * applies, and every template compiled once. A template that does not parse fails the metadata
 * write with `validation-failed` "request transform validation failed" and the template errors in
 * `internal`, as the reference does; nothing is called at this point.
 */
import { EngineError } from '../../errors.js';
import { jsonTypeName } from '../../json-type.js';
import { KritiError, KritiTemplate, type KritiErrorJson } from '../kriti/index.js';

export type BodyTransform =
  | { action: 'remove' }
  | { action: 'transform'; template: string }
  | { action: 'x_www_form_urlencoded'; form_template: Record<string, string> };

export interface RequestTransformDefinition {
  version: 1 | 2;
  template_engine: 'Kriti';
  method?: string;
  url?: string;
  query_params?: Record<string, string | null> | string;
  request_headers?: { add_headers?: Record<string, string>; remove_headers?: string[] };
  /** Version 1: a template string; version 2: an action. */
  body?: string | BodyTransform;
  /** Version 1 only: `application/json` (default) or `application/x-www-form-urlencoded`. */
  content_type?: string;
}

export interface ResponseTransformDefinition {
  version: 1 | 2;
  template_engine: 'Kriti';
  body?: string | BodyTransform;
}

/** Templates compiled once; `url`, header and query values are strings with `{{ }}` inside. */
export interface CompiledBody {
  action: 'remove' | 'transform' | 'x_www_form_urlencoded';
  template?: KritiTemplate;
  form?: Array<[string, KritiTemplate]>;
}

export interface CompiledRequestTransform {
  definition: RequestTransformDefinition;
  method?: string;
  url?: KritiTemplate;
  queryParams?: Array<[KritiTemplate, KritiTemplate | null]> | KritiTemplate;
  addHeaders: Array<[string, KritiTemplate]>;
  removeHeaders: string[];
  body?: CompiledBody;
  contentType?: string;
}

export interface CompiledResponseTransform {
  definition: ResponseTransformDefinition;
  body?: CompiledBody;
}

const FORM = 'application/x-www-form-urlencoded';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const parseFailed = (message: string, path: string) => new EngineError('parse-failed', message, { path });

function expectString(v: unknown, path: string): string {
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, path);
  return v;
}

function expectObject(v: unknown, path: string): Record<string, unknown> {
  if (!isObject(v)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(v)}`, path);
  return v;
}

/** Collects template parse errors so that all of them are reported at once. */
class Compiler {
  readonly errors: KritiErrorJson[] = [];

  /** A whole JSON template (bodies). */
  json(source: string): KritiTemplate | undefined {
    try {
      return KritiTemplate.parse(source);
    } catch (e) {
      if (e instanceof KritiError) this.errors.push(e.toJSON());
      else throw e;
      return undefined;
    }
  }

  /** A string with `{{ }}` parts (url, header and query values), read as the reference wraps it. */
  text(source: string): KritiTemplate | undefined {
    // A value that is one `{{ expr }}` keeps the expression's type (so null can drop a query
    // parameter and a non-string URL is reported); otherwise it is an interpolated string.
    const whole = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(source);
    if (whole && !whole[1]!.includes('{{') && !whole[1]!.includes('}}')) return this.json(source.trim());
    return this.json(`"${source}"`);
  }
}

function parseVersion(o: Record<string, unknown>, path: string): 1 | 2 {
  const v = o.version ?? 1;
  if (v !== 1 && v !== 2) throw parseFailed(`expected 1 or 2, encountered ${JSON.stringify(v)}`, `${path}.version`);
  return v;
}

function parseEngine(o: Record<string, unknown>, path: string): 'Kriti' {
  const e = o.template_engine ?? 'Kriti';
  if (e !== 'Kriti') throw parseFailed(`unknown template engine ${JSON.stringify(e)}; the only one is "Kriti"`, `${path}.template_engine`);
  return 'Kriti';
}

function parseBody(raw: unknown, version: 1 | 2, path: string, c: Compiler): { def: string | BodyTransform; compiled: CompiledBody } {
  if (version === 1) {
    const source = expectString(raw, path);
    return { def: source, compiled: { action: 'transform', template: c.json(source) } };
  }
  const o = expectObject(raw, path);
  const action = o.action;
  if (action === 'remove') return { def: { action }, compiled: { action } };
  if (action === 'transform') {
    const template = expectString(o.template, `${path}.template`);
    return { def: { action, template }, compiled: { action, template: c.json(template) } };
  }
  if (action === 'x_www_form_urlencoded') {
    const form = expectObject(o.form_template, `${path}.form_template`);
    const entries = Object.entries(form).map(([k, v]) => [k, expectString(v, `${path}.form_template.${k}`)] as [string, string]);
    return {
      def: { action, form_template: Object.fromEntries(entries) },
      compiled: { action, form: entries.flatMap(([k, v]) => { const t = c.text(v); return t ? [[k, t] as [string, KritiTemplate]] : []; }) },
    };
  }
  throw parseFailed('expected one of "remove", "transform", "x_www_form_urlencoded" for "action"', `${path}.action`);
}

function fail(kind: 'request' | 'response', path: string, errors: KritiErrorJson[]): EngineError {
  return new EngineError('validation-failed', `${kind} transform validation failed`, { path, internal: errors });
}

export function parseRequestTransform(raw: unknown, path: string): CompiledRequestTransform {
  const o = expectObject(raw, path);
  const version = parseVersion(o, path);
  const c = new Compiler();
  const def: RequestTransformDefinition = { version, template_engine: parseEngine(o, path) };
  const out: CompiledRequestTransform = { definition: def, addHeaders: [], removeHeaders: [] };
  if (o.method !== undefined && o.method !== null) out.method = def.method = expectString(o.method, `${path}.method`).toUpperCase();
  if (o.url !== undefined && o.url !== null) {
    def.url = expectString(o.url, `${path}.url`);
    out.url = c.text(def.url);
  }
  if (o.query_params !== undefined && o.query_params !== null) {
    const q = o.query_params;
    if (typeof q === 'string') {
      def.query_params = q;
      out.queryParams = c.text(q);
    } else {
      const obj = expectObject(q, `${path}.query_params`);
      const entries: Array<[string, string | null]> = Object.entries(obj).map(([k, v]) => [k, v === null ? null : expectString(v, `${path}.query_params.${k}`)]);
      def.query_params = Object.fromEntries(entries);
      out.queryParams = entries.flatMap(([k, v]) => {
        const key = c.text(k);
        const value = v === null ? null : c.text(v);
        return key && value !== undefined ? [[key, value] as [KritiTemplate, KritiTemplate | null]] : [];
      });
    }
  }
  if (o.request_headers !== undefined && o.request_headers !== null) {
    const h = expectObject(o.request_headers, `${path}.request_headers`);
    def.request_headers = {};
    if (h.add_headers !== undefined) {
      const add = expectObject(h.add_headers, `${path}.request_headers.add_headers`);
      const entries = Object.entries(add).map(([k, v]) => [k, expectString(v, `${path}.request_headers.add_headers.${k}`)] as [string, string]);
      def.request_headers.add_headers = Object.fromEntries(entries);
      out.addHeaders = entries.flatMap(([k, v]) => { const t = c.text(v); return t ? [[k, t] as [string, KritiTemplate]] : []; });
    }
    if (h.remove_headers !== undefined) {
      if (!Array.isArray(h.remove_headers)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(h.remove_headers)}`, `${path}.request_headers.remove_headers`);
      def.request_headers.remove_headers = h.remove_headers.map((x, i) => expectString(x, `${path}.request_headers.remove_headers[${i}]`));
      out.removeHeaders = def.request_headers.remove_headers;
    }
  }
  if (o.body !== undefined && o.body !== null) {
    const body = parseBody(o.body, version, `${path}.body`, c);
    def.body = body.def;
    out.body = body.compiled;
  }
  if (o.content_type !== undefined && o.content_type !== null) {
    const ct = expectString(o.content_type, `${path}.content_type`);
    if (version !== 1) throw parseFailed('content_type applies to version 1 transforms only; version 2 sets headers with request_headers', `${path}.content_type`);
    if (ct !== 'application/json' && ct !== FORM) throw parseFailed(`expected "application/json" or "${FORM}" for "content_type"`, `${path}.content_type`);
    out.contentType = def.content_type = ct;
  }
  if (c.errors.length > 0) throw fail('request', path, c.errors);
  return out;
}

export function parseResponseTransform(raw: unknown, path: string): CompiledResponseTransform {
  const o = expectObject(raw, path);
  const version = parseVersion(o, path);
  const c = new Compiler();
  const def: ResponseTransformDefinition = { version, template_engine: parseEngine(o, path) };
  const out: CompiledResponseTransform = { definition: def };
  if (o.body !== undefined && o.body !== null) {
    const body = parseBody(o.body, version, `${path}.body`, c);
    def.body = body.def;
    out.body = body.compiled;
  }
  if (c.errors.length > 0) throw fail('response', path, c.errors);
  return out;
}

export const FORM_CONTENT_TYPE = FORM;
