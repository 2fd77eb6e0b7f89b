/**
 * The CLI's connection to a running engine: metadata operations on /v1/metadata and SQL on
 * /v2/query, with the admin secret in `X-Svc-Admin-Secret`. Engine errors become ProjectErrors
 * naming the operation, the engine's code and message; an unreachable engine says where it looked.
 */
import { ProjectError } from './errors.js';

export interface EngineTarget {
  endpoint: string;
  adminSecret?: string;
}

export interface RunSqlResult {
  result_type: 'CommandOk' | 'TuplesOk';
  result: string[][] | null;
}

export class EngineClient {
  constructor(readonly target: EngineTarget) {}

  async metadata<T = unknown>(body: { type: string; args: unknown; [key: string]: unknown }): Promise<T> {
    return this.post<T>('/v1/metadata', body);
  }

  async runSql(source: string, sql: string, opts: { readOnly?: boolean } = {}): Promise<RunSqlResult> {
    return this.post<RunSqlResult>('/v2/query', {
      type: 'run_sql',
      args: { source, sql, cascade: false, read_only: opts.readOnly ?? false },
    });
  }

  /** The engine's pg_dump API (the `pgdump` API must be enabled): SQL text. */
  async pgDump(source: string, opts: string[]): Promise<string> {
    const { res, text } = await this.send('/v1alpha1/pg_dump', { opts, clean_output: true, source });
    if (res.ok) return text;
    this.fail('pg_dump', res, text);
  }

  async post<T>(path: string, body: { type: string; [key: string]: unknown }): Promise<T> {
    const { res, text } = await this.send(path, body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ProjectError(`${body.type}: the engine at ${this.target.endpoint} answered HTTP ${res.status} with a non-JSON body`);
    }
    if (!res.ok) this.fail(body.type, res, text);
    return parsed as T;
  }

  private async send(path: string, body: unknown): Promise<{ res: Response; text: string }> {
    const url = new URL(path.slice(1), this.target.endpoint.endsWith('/') ? this.target.endpoint : `${this.target.endpoint}/`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.target.adminSecret) headers['x-svc-admin-secret'] = this.target.adminSecret;
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ProjectError(`cannot reach the engine at ${this.target.endpoint}: ${cause?.code ?? cause?.message ?? String(e)}`);
    }
    return { res, text: await res.text() };
  }

  private fail(what: string, res: Response, text: string): never {
    let err: { code?: string; error?: string; path?: string; internal?: unknown } = {};
    try {
      err = JSON.parse(text) as typeof err;
    } catch {
      /* not JSON: the raw text is the message */
    }
    const where = err.path && err.path !== '$' ? ` at ${err.path}` : '';
    const internal = err.internal === undefined ? '' : `\n${JSON.stringify(err.internal, null, 2)}`;
    throw new ProjectError(`${what} failed (${err.code ?? `HTTP ${res.status}`})${where}: ${err.error ?? text}${internal}`);
  }
}
