/** A `pg_` source: its pool, introspection, compilation and the read path. */
import type { CompiledStatement, SourceConnection, SourceHealth } from '../../../core/db/contract.js';
import type { DatabaseCatalog } from '../../../core/db/catalog.js';
import type { CompileOptions, RootFieldIR } from '../../../core/graphql/ir.js';
import type { ResolvedPgConnection } from './connection-info.js';
import { PgSourcePool } from './pool.js';
import { introspectPostgres } from './introspect.js';
import { compileRootField } from './sql/index.js';
import { bindValues } from './sql/bind.js';
import { queryEngineError } from './query-errors.js';

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

  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    const result = await this.pool.query(sql, values);
    return { rows: result.rows };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
