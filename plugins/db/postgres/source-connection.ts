/** A `pg_` source: its pool, introspection, compilation, the read path and mutations. */
import {
  type ChangeFeed,
  type ChangeFeedListener,
  type CohortInput,
  type CohortOutput,
  type CompiledMutation,
  type CompiledStatement,
  type CompileOptions,
  type DatabaseCatalog,
  EngineError,
  type EnumValueRow,
  errors,
  type MultiplexedStatement,
  type MutationIR,
  type MutationRun,
  type PoolStats,
  type QualifiedTable,
  type RawSqlOptions,
  type RawSqlResult,
  type RootFieldIR,
  type RunOptions,
  type SourceConnection,
  type SourceHealth,
  type SubscriptionFieldIR,
  SpanKind,
  type TableRef,
  type TypeOperators,
  tracing,
} from '../../../core/sdk/index.js';
import { PipelineStepError, type PipelineStep } from './pipeline.js';
import type { ResolvedPgConnection } from './connection-info.js';
import { PgSourcePool } from './pool.js';
import { introspectPostgres } from './introspect.js';
import { CATALOG_STATE_SQL } from './catalog-state.js';
import { refreshPgCatalog } from './catalog-refresh.js';
import { compileRootField } from './sql/index.js';
import { bindValues } from './sql/bind.js';
import { quoteIdent } from './sql/quote.js';
import { queryEngineError } from './query-errors.js';
import { extensionTypeOperators } from './extension-types.js';
import { compileMutation, OneTripMutation, PgCompiledMutation, ProgramRun } from './sql/mutation/index.js';

// The session reaches triggers as the transaction-local setting `svc.user` (always a parameter).
const SET_SESSION = `SELECT set_config('svc.user', $1, true)`;
// While tracing, the request's trace context goes with the events the writes capture.
const SET_SESSION_TRACED = `SELECT set_config('svc.user', $1, true), set_config('svc.tracecontext', $2, true)`;
import { runPgSql } from './run-sql.js';
import { explainStatement } from './explain.js';
import { compileMultiplexed, type PgMultiplexedStatement } from './sql/multiplexed.js';
import { runMultiplexed } from './multiplexed-run.js';
import { dropChangeTracking, PgChangeFeed, supportsChangeFeed } from './change-feed.js';
import type { PgEventLog } from './event-triggers/event-log.js';

export class PgSourceConnection implements SourceConnection {
  /** `postgres`, or the kind of a plugin serving a PostgreSQL derivative through this class (Citus). */
  readonly kind: string = 'postgres';
  readonly pool: PgSourcePool;
  /** Created on first use by the event-trigger capability; shares this pool. */
  eventLog: PgEventLog | undefined;
  protected readonly secrets: readonly string[];

  private feed: PgChangeFeed | undefined;
  /** False where introspect() adds what a per-relation read does not know (Citus' distribution). */
  protected readonly refreshesByRelation: boolean = true;

  /** Pools of the read replicas; GraphQL queries go to them in turn (the primary when none). */
  private readonly replicas: PgSourcePool[];
  private nextReplica = 0;

  constructor(
    private readonly resolved: ResolvedPgConnection,
    onIdleError?: (message: string) => void,
  ) {
    this.pool = new PgSourcePool(resolved, { onIdleError });
    this.replicas = resolved.readReplicas.map((r) => new PgSourcePool(r, { onIdleError }));
    this.secrets = resolved.secrets;
  }

  typeOperators(type: string): TypeOperators | undefined {
    return extensionTypeOperators(type);
  }

  introspect(): Promise<DatabaseCatalog> {
    return introspectPostgres(this.pool).catch((e: unknown) => {
      throw queryEngineError(e, 'introspection', this.secrets);
    });
  }

  async catalogFingerprint(): Promise<string> {
    const token = await this.pool.queryCatalogJson(CATALOG_STATE_SQL).catch((e: unknown) => {
      throw queryEngineError(e, 'introspection', this.secrets);
    });
    if (token === null) throw errors.unexpected('the catalog fingerprint returned no result');
    return token;
  }

  refreshCatalog(earlier: DatabaseCatalog, earlierToken: string, token: string): Promise<DatabaseCatalog | null> {
    if (!this.refreshesByRelation) return Promise.resolve(null);
    return refreshPgCatalog(this.pool, earlier, earlierToken, token).catch((e: unknown) => {
      throw queryEngineError(e, 'introspection', this.secrets);
    });
  }

  health(timeoutMs = 5000, testSql?: string): Promise<SourceHealth> {
    return this.pool.healthCheck(timeoutMs, testSql);
  }

  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return compileRootField(ir, options);
  }

  async runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[], options?: RunOptions): Promise<string> {
    const params = [sessionJson, ...bindValues(statement.params, values as unknown[])];
    try {
      return (await this.readPool().queryJsonText(statement.name, statement.text, params, options?.deadline)) ?? 'null';
    } catch (e) {
      throw queryEngineError(e, statement.text, this.secrets);
    }
  }

  explainQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<{ sql: string; plan: string[] }> {
    return explainStatement(this.pool, statement.text, [sessionJson, ...bindValues(statement.params, values as unknown[])], this.secrets);
  }

  runSql(sql: string, options: RawSqlOptions): Promise<RawSqlResult> {
    return runPgSql(this.pool, sql, options);
  }

  compileMutation(ir: MutationIR, options: CompileOptions): CompiledMutation {
    return compileMutation(ir, options);
  }

  /** One transaction for the whole batch: the first failure rolls every mutation back. */
  async runMutations(batch: readonly MutationRun[], sessionJson: string, options?: RunOptions): Promise<string[]> {
    const plans = batch.map((item) => {
      const plan = item.mutation;
      if (!(plan instanceof PgCompiledMutation)) throw new EngineError('unexpected', 'mutation compiled for another database kind');
      return { plan, bound: bindValues(plan.params, item.values as unknown[]) };
    });
    // Nothing to write (e.g. `objects: []`): no transaction at all, as in the reference engine.
    if (plans.every((p) => p.plan.program.kind === 'constant')) {
      return plans.map((p) => (p.plan.program.kind === 'constant' ? p.plan.program.json : 'null'));
    }
    const traceContext = tracing.active ? tracing.currentTraceContext() : undefined;
    const session: PipelineStep = traceContext
      ? { text: SET_SESSION_TRACED, values: [sessionJson, JSON.stringify(traceContext)], name: 'svc_set_session_traced' }
      : { text: SET_SESSION, values: [sessionJson], name: 'svc_set_session' };
    const trip = OneTripMutation.of(plans.map((p) => ({ program: p.plan.program, bound: p.bound })), session, sessionJson);
    if (trip) return this.runInOneTrip(trip, options?.deadline);
    try {
      // Programs reading earlier statements' rows run statement by statement; BEGIN and the
      // session setting still share the first round trip.
      return await this.pool.withTransaction(this.pool.isolationLevel, false, async (tx) => {
        const out: string[] = [];
        for (const { plan, bound } of plans) out.push(await new ProgramRun(tx, plan, bound, sessionJson, this.secrets).run());
        return out;
      }, options?.deadline, [session]);
    } catch (e) {
      // Errors of the engine's own statements are mapped where they ran; this catches BEGIN/COMMIT.
      throw queryEngineError(e, 'COMMIT', this.secrets);
    }
  }

  private async runInOneTrip(trip: OneTripMutation, deadline: number | undefined): Promise<string[]> {
    const run = () => this.pool.transactionInOneTrip(this.pool.isolationLevel, trip.steps, deadline);
    try {
      const rows = tracing.active
        ? await tracing.span('db.query', { 'db.system': 'postgresql', 'db.statement': trip.steps.map((s) => s.text).join(';\n') }, run, SpanKind.CLIENT)
        : await run();
      return trip.results(rows);
    } catch (e) {
      throw e instanceof PipelineStepError ? trip.error(e, this.secrets) : queryEngineError(e, 'COMMIT', this.secrets);
    }
  }

  compileMultiplexed(fields: readonly SubscriptionFieldIR[], options: CompileOptions): MultiplexedStatement {
    return compileMultiplexed(fields, options);
  }

  async runMultiplexed(statement: MultiplexedStatement, cohorts: readonly CohortInput[]): Promise<CohortOutput[]> {
    const s = statement as PgMultiplexedStatement;
    if (typeof s.text !== 'string') throw new EngineError('unexpected', 'subscription compiled for another database kind');
    try {
      return await runMultiplexed(this.pool, s, cohorts);
    } catch (e) {
      throw queryEngineError(e, s.text, this.secrets);
    }
  }

  async changeFeed(listener: ChangeFeedListener): Promise<ChangeFeed | null> {
    if (this.feed) throw new EngineError('unexpected', 'a change feed is already open on this source');
    if (!(await supportsChangeFeed(this.pool))) return null;
    this.feed = new PgChangeFeed(this.resolved, this.pool, listener);
    return this.feed;
  }

  async dropChangeTracking(tables: readonly TableRef[] | 'all'): Promise<number> {
    // A source that cannot notify never got a trigger.
    if (!(await supportsChangeFeed(this.pool))) return 0;
    return dropChangeTracking(this.pool, tables);
  }

  async readEnumValues(table: QualifiedTable, keyColumn: string, commentColumn: string | null): Promise<EnumValueRow[]> {
    const comment = commentColumn ? `${quoteIdent(commentColumn)}::text` : 'NULL::text';
    const sql = `SELECT ${quoteIdent(keyColumn)}::text AS value, ${comment} AS description FROM ${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
    try {
      const { rows } = await this.pool.query<{ value: string; description: string | null }>(sql);
      return rows;
    } catch (e) {
      // The reference engine's wording for an enum table it cannot read.
      throw new Error(`postgres error: ${(e as Error).message}`, { cause: e });
    }
  }

  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    const result = await this.pool.query(sql, values);
    return { rows: result.rows };
  }

  private readPool(): PgSourcePool {
    const n = this.replicas.length;
    if (n === 0) return this.pool;
    const pool = this.replicas[this.nextReplica]!;
    this.nextReplica = (this.nextReplica + 1) % n;
    return pool;
  }

  poolStats(): PoolStats {
    return this.pool.stats;
  }

  async close(): Promise<void> {
    await this.feed?.close();
    await Promise.all(this.replicas.map((r) => r.close()));
    return this.pool.close();
  }
}
