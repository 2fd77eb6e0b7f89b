/** A `pg_` source: its pool, introspection, compilation, the read path and mutations. */
import type { CompiledMutation, CompiledStatement, MutationRun, SourceConnection, SourceHealth } from '../../../core/db/contract.js';
import type { DatabaseCatalog } from '../../../core/db/catalog.js';
import type { CompileOptions, RootFieldIR } from '../../../core/graphql/ir.js';
import type { MutationIR } from '../../../core/graphql/ir-mutation.js';
import { EngineError } from '../../../core/errors.js';
import type { ResolvedPgConnection } from './connection-info.js';
import { PgSourcePool } from './pool.js';
import { introspectPostgres } from './introspect.js';
import { compileRootField } from './sql/index.js';
import { bindValues } from './sql/bind.js';
import { queryEngineError } from './query-errors.js';
import { compileMutation, PgCompiledMutation, ProgramRun } from './sql/mutation/index.js';

// The session reaches triggers as the transaction-local setting `svc.user` (always a parameter).
const SET_SESSION = `SELECT set_config('svc.user', $1, true)`;
import { runPgSql } from './run-sql.js';
import type { RawSqlOptions, RawSqlResult } from '../../../core/db/raw-sql.js';
import { explainStatement } from './explain.js';

export class PgSourceConnection implements SourceConnection {
  readonly kind = 'postgres';
  readonly pool: PgSourcePool;
  private readonly secrets: readonly string[];

  constructor(resolved: ResolvedPgConnection, onIdleError?: (message: string) => void) {
    this.pool = new PgSourcePool(resolved, { onIdleError });
    this.secrets = resolved.secrets;
  }

  introspect(): Promise<DatabaseCatalog> {
    return introspectPostgres(this.pool).catch((e: unknown) => {
      throw queryEngineError(e, 'introspection', this.secrets);
    });
  }

  health(timeoutMs = 5000): Promise<SourceHealth> {
    return this.pool.healthCheck(timeoutMs);
  }

  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return compileRootField(ir, options);
  }

  async runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<string> {
    const params = [sessionJson, ...bindValues(statement.params, values as unknown[])];
    try {
      return (await this.pool.queryJsonText(statement.name, statement.text, params)) ?? 'null';
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
  async runMutations(batch: readonly MutationRun[], sessionJson: string): Promise<string[]> {
    const plans = batch.map((item) => {
      const plan = item.mutation;
      if (!(plan instanceof PgCompiledMutation)) throw new EngineError('unexpected', 'mutation compiled for another database kind');
      return { plan, bound: bindValues(plan.params, item.values as unknown[]) };
    });
    // Nothing to write (e.g. `objects: []`): no transaction at all, as in the reference engine.
    if (plans.every((p) => p.plan.program.kind === 'constant')) {
      return plans.map((p) => (p.plan.program.kind === 'constant' ? p.plan.program.json : 'null'));
    }
    try {
      return await this.pool.withTransaction(this.pool.isolationLevel, false, async (tx) => {
        await tx.queryTextRow(SET_SESSION, [sessionJson]);
        const out: string[] = [];
        for (const { plan, bound } of plans) out.push(await new ProgramRun(tx, plan, bound, sessionJson, this.secrets).run());
        return out;
      });
    } catch (e) {
      // Errors of the engine's own statements are mapped where they ran; this catches BEGIN/COMMIT.
      throw queryEngineError(e, 'COMMIT', this.secrets);
    }
  }

  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    const result = await this.pool.query(sql, values);
    return { rows: result.rows };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
