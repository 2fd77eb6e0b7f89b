/**
 * Starts a real engine for a test: the configured plugins (or the given ones), a real database,
 * port 0 on loopback, and a silent logger. `call` posts JSON and returns status and parsed body.
 */
import { startEngine, type Engine, type EngineOptions } from '../../core/engine.js';
import { silentLogger } from '../../core/logger.js';
import type { ServerConfig } from '../../core/config/types.js';
import { testConfig } from './config.js';

export async function startTestEngine(config: Partial<ServerConfig>, options: EngineOptions = {}): Promise<Engine> {
  return startEngine(testConfig(config), { logger: silentLogger(), ...options });
}

export interface CallResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any
  engine: { url: string },
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  method = body === undefined ? 'GET' : 'POST',
): Promise<CallResult<T>> {
  const res = await fetch(engine.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* plain-text bodies (healthz) stay strings */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export const metadata = <T = any>(engine: { url: string }, body: unknown, headers: Record<string, string> = {}) => // eslint-disable-line @typescript-eslint/no-explicit-any
  call<T>(engine, '/v1/metadata', body, headers);

export const graphql = <T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any
  engine: { url: string },
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
) => call<T>(engine, '/v1/graphql', { query, variables }, headers);
