/**
 * `test_webhook_transform`: renders a request transform over sample data and answers the request
 * that would be sent, without sending it. Environment references resolve against the mock `env`
 * only (real variables are never revealed), with the reference's message for a missing one.
 */
import { EngineError } from '../../errors.js';
import { jsonTypeName } from '../../json-type.js';
import type { Json } from '../kriti/index.js';
import { parseRequestTransform, parseResponseTransform } from './definition.js';
import { applyRequestTransform, bodyAsJson, TransformError } from './apply.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function missingEnv(name: string): EngineError {
  return new EngineError(
    'not-found',
    `Missing Env Var: ${name}. For security reasons when testing request options real environment variable values are not available. ` +
      `Please enter a mock value for ${name} in the Sample Env Variables list.`,
  );
}

function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\{\{([^}]+)\}\}/g, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) throw missingEnv(name);
    return v;
  });
}

function stringMap(v: unknown, path: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new EngineError('parse-failed', `expected Object, but encountered ${jsonTypeName(v)}`, { path });
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new EngineError('parse-failed', `expected String, but encountered ${jsonTypeName(x)}`, { path: `${path}.${k}` });
  }
  return v as Record<string, string>;
}

export interface TestTransformResult {
  webhook_url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Json;
}

export function testWebhookTransform(args: Record<string, unknown>, path: string): TestTransformResult {
  const env = stringMap(args.env, `${path}.env`);
  const sessionVariables = stringMap(args.session_variables, `${path}.session_variables`);
  const rawUrl = args.webhook_url;
  let url: string;
  if (typeof rawUrl === 'string') url = interpolate(rawUrl, env);
  else if (isObject(rawUrl) && typeof rawUrl.from_env === 'string') {
    const v = env[rawUrl.from_env];
    if (v === undefined) throw missingEnv(rawUrl.from_env);
    url = v;
  } else if (rawUrl === undefined) throw new EngineError('parse-failed', 'key "webhook_url" not found', { path });
  else throw new EngineError('parse-failed', 'expected a URL string or {"from_env": NAME} for "webhook_url"', { path: `${path}.webhook_url` });

  const headers: Array<[string, string]> = [];
  const rawHeaders = args.request_headers ?? [];
  if (!Array.isArray(rawHeaders)) throw new EngineError('parse-failed', `expected Array, but encountered ${jsonTypeName(rawHeaders)}`, { path: `${path}.request_headers` });
  rawHeaders.forEach((h, i) => {
    if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== 'string' || typeof h[1] !== 'string') {
      throw new EngineError('parse-failed', 'expected a [name, value] pair of strings', { path: `${path}.request_headers[${i}]` });
    }
    headers.push([h[0], interpolate(h[1], env)]);
  });

  if (args.request_transform === undefined) throw new EngineError('parse-failed', 'key "request_transform" not found', { path });
  const transform = parseRequestTransform(args.request_transform, `${path}.request_transform`);
  if (args.response_transform !== undefined && args.response_transform !== null) parseResponseTransform(args.response_transform, `${path}.response_transform`);
  if (!URL.canParse(url)) {
    throw new EngineError('validation-failed', 'request transform validation failed', {
      path,
      internal: [{ error_code: 'Request Initialization Error', message: `Invalid URL: ${url}` }],
    });
  }
  const body = (args.body ?? null) as Json;
  try {
    const out = applyRequestTransform(
      transform,
      { method: 'GET', url, headers, body: JSON.stringify(body) },
      { body, sessionVariables, baseUrl: url },
    );
    return {
      webhook_url: out.url,
      method: out.method,
      headers: out.headers.map(([n, v]) => [n.toLowerCase(), v]),
      body: out.body === null ? null : (bodyAsJson(out.body) ?? out.body),
    };
  } catch (e) {
    if (e instanceof TransformError) throw new EngineError('validation-failed', 'request transform validation failed', { path, internal: e.errors });
    throw e;
  }
}
