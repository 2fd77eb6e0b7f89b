/**
 * A `dist_` source: the PostgreSQL source connection (pool, compiler, mutations, run_sql,
 * subscriptions) with what Citus changes. Introspection adds each table's distribution from the
 * Citus catalog, read in the same read-only snapshot as the rest of the catalog; every row is
 * built with `json_build_object`; and there is no change feed, since it needs triggers that
 * Citus does not allow on every kind of table (subscriptions poll instead).
 */
import {
  type ChangeFeed,
  type CompiledMutation,
  type CompiledStatement,
  type CompileOptions,
  type DatabaseCatalog,
  type MultiplexedStatement,
  type MutationIR,
  type RootFieldIR,
  type SubscriptionFieldIR,
  tableKey,
} from '../../../core/sdk/index.js';
import type { ResolvedPgConnection } from '../postgres/connection-info.js';
import { introspectPostgres } from '../postgres/introspect.js';
import { queryEngineError } from '../postgres/query-errors.js';
import { PgSourceConnection } from '../postgres/source-connection.js';
import type { PgCompileOptions } from '../postgres/sql/index.js';
import { readDistribution } from './distribution.js';

const citusOptions = (options: CompileOptions): PgCompileOptions => ({ ...options, rowsWithJsonBuildObject: true });

export class CitusSourceConnection extends PgSourceConnection {
  override readonly kind = 'citus';
  protected override readonly refreshesByRelation = false;

  constructor(
    resolved: ResolvedPgConnection,
    /** Where `pg_dist_partition` is read: `pg_catalog` on Citus, another schema for the emulated catalog. */
    private readonly catalogSchema: string,
    onIdleError?: (message: string) => void,
  ) {
    super(resolved, onIdleError);
  }

  override introspect(): Promise<DatabaseCatalog> {
    return this.pool
      .withTransaction('repeatable-read', true, async (tx) => {
        const catalog = await introspectPostgres(tx);
        const distribution = await readDistribution(tx, this.catalogSchema);
        for (const table of catalog.tables) table.distribution = distribution.get(tableKey(table)) ?? { kind: 'local' };
        return catalog;
      })
      .catch((e: unknown) => {
        throw queryEngineError(e, 'introspection', this.secrets);
      });
  }

  override compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return super.compileQuery(ir, citusOptions(options));
  }

  override compileMutation(ir: MutationIR, options: CompileOptions): CompiledMutation {
    return super.compileMutation(ir, citusOptions(options));
  }

  override compileMultiplexed(fields: readonly SubscriptionFieldIR[], options: CompileOptions): MultiplexedStatement {
    return super.compileMultiplexed(fields, citusOptions(options));
  }

  override changeFeed(): Promise<ChangeFeed | null> {
    return Promise.resolve(null);
  }

  override dropChangeTracking(): Promise<number> {
    return Promise.resolve(0);
  }
}
