/** A `wh_` source: its client, introspection, compilation and the read path (no mutations: read-only, as the reference). */
import { type CompiledStatement, type CompileOptions, type DatabaseCatalog, EngineError, giveUpAtDeadline, type RootFieldIR, type RunOptions, type SourceConnection, type SourceHealth } from '../../../core/sdk/index.js';
import { BigQueryConnection, type QueryParameter } from './client.js';
import type { ResolvedBigQueryConnection } from './config.js';
import { bigQueryEngineError } from './errors.js';
import { flatRows, introspectBigQuery } from './introspect.js';
import { resultJson } from './results.js';
import { bindStatement } from './sql/bind.js';
import { compileRootField, type BigQueryStatement } from './sql/compile.js';
import { inlineParams } from './sql/literal.js';

function statementOf(s: CompiledStatement): BigQueryStatement {
  const b = s as BigQueryStatement;
  if (!Array.isArray(b.slots) || !Array.isArray(b.paging)) throw new EngineError('unexpected', 'statement compiled for another database kind');
  return b;
}

export class BigQuerySourceConnection implements SourceConnection {
  readonly kind = 'bigquery';
  readonly client: BigQueryConnection;

  constructor(resolve: () => ResolvedBigQueryConnection, apiEndpoint: string | undefined) {
    this.client = new BigQueryConnection(resolve, apiEndpoint);
  }

  async introspect(): Promise<DatabaseCatalog> {
    try {
      return await introspectBigQuery(this.client, this.client.config.datasets);
    } catch (e) {
      throw bigQueryEngineError(e, 'introspection');
    }
  }

  async health(timeoutMs = 5000, testSql = 'SELECT 1'): Promise<SourceHealth> {
    const timestamp = new Date().toISOString();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    try {
      const r = await Promise.race([this.client.query(testSql, {}, { jobTimeoutMs: timeoutMs }).then(() => 'ok' as const), timeout]);
      return r === 'ok' ? { status: 'OK', error: null, timestamp } : { status: 'TIMEOUT', error: `no answer within ${timeoutMs} ms`, timestamp };
    } catch (e) {
      return { status: 'ERROR', error: (e as Error).message, timestamp };
    } finally {
      clearTimeout(timer);
    }
  }

  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return compileRootField(ir, options);
  }

  /** The statement with this request's values: parameters, and the paging clauses written out. */
  bind(statement: CompiledStatement, values: readonly unknown[]): { sql: string; params: Record<string, QueryParameter>; s: BigQueryStatement } {
    const s = statementOf(statement);
    return { ...bindStatement(s, values, this.client.config.globalSelectLimit), s };
  }

  async runQuery(statement: CompiledStatement, _sessionJson: string, values: readonly unknown[], options?: RunOptions): Promise<string> {
    const { sql, params, s } = this.bind(statement, values);
    try {
      const deadline = options?.deadline;
      // The job's own timeout stops it in BigQuery too; the engine stops waiting at the same moment.
      const run = this.client.query(sql, params, deadline === undefined ? {} : { jobTimeoutMs: Math.max(1, deadline - Date.now()) });
      const result = deadline === undefined ? await run : await giveUpAtDeadline(run, deadline);
      return resultJson(result, s.shape, s.stringifyNumbers);
    } catch (e) {
      throw bigQueryEngineError(e, sql);
    }
  }

  /** `/v1/graphql/explain`: the statement with its values as literals, and what a dry run of it reports. */
  async explainQuery(statement: CompiledStatement, _sessionJson: string, values: readonly unknown[]): Promise<{ sql: string; plan: string[] }> {
    const { sql, params } = this.bind(statement, values);
    try {
      const { statistics } = await this.client.query(sql, params, { dryRun: true });
      const query = (statistics['query'] ?? {}) as Record<string, unknown>;
      const plan = [
        `dry run: statementType=${String(query['statementType'] ?? 'SELECT')}`,
        `totalBytesProcessed=${String(statistics['totalBytesProcessed'] ?? query['totalBytesProcessed'] ?? 0)}`,
        ...((query['referencedTables'] as Array<{ datasetId?: string; tableId?: string }> | undefined) ?? []).map((t) => `referencedTable=${t.datasetId}.${t.tableId}`),
      ];
      return { sql: inlineParams(sql, params), plan };
    } catch (e) {
      throw bigQueryEngineError(e, sql);
    }
  }

  /** Standard SQL as an admin would run it; values become `@p0`, `@p1`, ... parameters typed from the JS values. */
  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    const params: Record<string, QueryParameter> = {};
    values.forEach((v, i) => {
      const type = typeof v === 'number' ? (Number.isInteger(v) ? 'INT64' : 'FLOAT64') : typeof v === 'boolean' ? 'BOOL' : 'STRING';
      params[`p${i}`] = { type, value: v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v) };
    });
    try {
      return { rows: flatRows(await this.client.query(sql, params)) };
    } catch (e) {
      throw bigQueryEngineError(e, sql);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
