/**
 * A source's BigQuery client (@google-cloud/bigquery, loaded with the first query so an engine
 * without BigQuery sources never loads it). Every statement runs as a query job through the
 * client's `query` (jobs.query, then getQueryResults while the job runs), with named, typed
 * parameters, and its rows come back raw (`skipParsing`: the REST API's `{f: [{v}]}` form with
 * the result schema), so results.ts decides how each value is written in the response. Failed
 * calls the API marks as transient are retried `retry_limit` times with a doubling delay from
 * `retry_base_delay`, as the reference does.
 */
import type { BigQuery as BigQueryClient } from '@google-cloud/bigquery';
import type { ResolvedBigQueryConnection } from './config.js';

/** One named parameter: its BigQuery type (`INT64`, `['STRING']` for an array) and value as text. */
export interface QueryParameter {
  type: string | [string];
  value: string | null | string[];
}

/** A result schema field of the REST API. */
export interface SchemaField {
  name: string;
  type: string;
  mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  fields?: SchemaField[];
}

/** A raw REST row: `{f: [{v: cell}, ...]}`; a cell is text, null, a row (RECORD) or a list of `{v}`. */
export interface RawRow {
  f: Array<{ v: unknown }>;
}

export interface QueryResult {
  schema: SchemaField[];
  rows: RawRow[];
  /** The job's statistics (dry runs: bytes processed, referenced tables). */
  statistics: Record<string, unknown>;
}

export interface QueryOptions {
  dryRun?: boolean;
  /** Milliseconds the job may run; the server cancels it after that. */
  jobTimeoutMs?: number;
}

const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery';
const TRANSIENT = new Set(['backendError', 'rateLimitExceeded', 'internalError', 'jobBackendError', 'jobInternalError']);

export function isTransient(e: unknown): boolean {
  const err = e as { code?: number; errors?: Array<{ reason?: string }> };
  if (typeof err.code === 'number' && (err.code === 429 || err.code >= 500)) return true;
  return (err.errors ?? []).some((x) => x.reason !== undefined && TRANSIENT.has(x.reason));
}

export class BigQueryConnection {
  private client: Promise<BigQueryClient> | undefined;
  private resolved: ResolvedBigQueryConnection | undefined;

  constructor(
    private readonly resolve: () => ResolvedBigQueryConnection,
    private readonly apiEndpoint: string | undefined,
  ) {}

  /** The resolved configuration (environment variables read on first use). */
  get config(): ResolvedBigQueryConnection {
    this.resolved ??= this.resolve();
    return this.resolved;
  }

  private get(): Promise<BigQueryClient> {
    if (!this.client) {
      const opening = Promise.all([import('@google-cloud/bigquery'), import('google-auth-library')]).then(([{ BigQuery }, { JWT }]) => {
        const c = this.config;
        // The service account signs its own bearer tokens (a self-signed JWT carrying the
        // BigQuery scope, which Google's APIs accept): no round trip to the OAuth token endpoint
        // before the first query, and nothing to refresh.
        const authClient = new JWT({ email: c.serviceAccount.client_email, key: c.serviceAccount.private_key, scopes: [BIGQUERY_SCOPE] });
        authClient.useJWTAccessWithScope = true;
        return new BigQuery({
          projectId: c.projectId,
          authClient,
          // The retries are ours (below), with the source's own limit and delay.
          autoRetry: false,
          maxRetries: 0,
          ...(this.apiEndpoint !== undefined ? { apiEndpoint: this.apiEndpoint } : {}),
        });
      });
      opening.catch(() => {
        if (this.client === opening) {
          this.client = undefined;
          this.resolved = undefined;
        }
      });
      this.client = opening;
    }
    return this.client;
  }

  async query(sql: string, params: Readonly<Record<string, QueryParameter>>, options: QueryOptions = {}): Promise<QueryResult> {
    const client = await this.get();
    const { retryLimit, retryBaseDelayMs } = this.config;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(client, sql, params, options);
      } catch (e) {
        if (attempt >= retryLimit || !isTransient(e)) throw e;
        await new Promise((r) => setTimeout(r, retryBaseDelayMs * 2 ** attempt));
      }
    }
  }

  private async once(client: BigQueryClient, sql: string, params: Readonly<Record<string, QueryParameter>>, options: QueryOptions): Promise<QueryResult> {
    const values: Record<string, unknown> = {};
    const types: Record<string, string | string[]> = {};
    for (const [name, p] of Object.entries(params)) {
      values[name] = p.value;
      types[name] = p.type;
    }
    const request = {
      query: sql,
      useLegacySql: false,
      ...(Object.keys(values).length > 0 ? { params: values, types } : {}),
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.jobTimeoutMs !== undefined ? { jobTimeoutMs: options.jobTimeoutMs } : {}),
      skipParsing: true,
    };
    if (options.dryRun) {
      const [job] = await client.createQueryJob(request);
      const statistics = (job.metadata as { statistics?: Record<string, unknown> }).statistics ?? {};
      return { schema: [], rows: [], statistics };
    }
    const [rows, , response] = (await client.query(request)) as unknown as [RawRow[] | undefined, unknown, { schema?: { fields?: SchemaField[] }; statistics?: Record<string, unknown> } | undefined];
    return { schema: response?.schema?.fields ?? [], rows: rows ?? [], statistics: response?.statistics ?? {} };
  }

  close(): Promise<void> {
    // The client holds no connections of its own (HTTP keep-alive sockets close when idle).
    this.client = undefined;
    this.resolved = undefined;
    return Promise.resolve();
  }
}
