/** A `sqlb_` source: its pool, introspection, compilation, the read path and mutations. */
import {
  type CompiledMutation,
  type CompiledStatement,
  type CompileOptions,
  type DatabaseCatalog,
  EngineError,
  type MutationIR,
  type MutationRun as MutationRunInput,
  type PoolStats,
  type RootFieldIR,
  type RunOptions,
  type SourceConnection,
  type SourceHealth,
  type TableRef,
  type TypeOperators,
} from '../../../core/sdk/index.js';
import { mssqlEngineError } from './errors.js';
import { catalogFromResultSets, declaredTypes, INTROSPECTION_BATCH } from './introspect.js';
import type { MssqlDriver } from './pool.js';
import { compileRootField, type MssqlStatement } from './sql/compile.js';
import { compileMutation, MssqlCompiledMutation } from './sql/mutation.js';
import { MutationRun, type TableKeys } from './sql/mutation-run.js';
import { quoteTable } from './sql/quote.js';
import { bindSlots } from './sql/template.js';
import { inlineValues } from './sql/inline.js';
import { spatialTypeOperators } from './spatial.js';
import { MssqlEventLog } from './event-triggers/event-log.js';
import { SESSION_CONTEXT_KEY } from './event-triggers/capture-sql.js';

/**
 * The mutation's session variables for capture triggers (SESSION_CONTEXT holds at most 4,000
 * characters a value: longer ones are sent as null). Cleared before the connection goes back.
 */
const SET_SESSION_SQL = `EXEC sp_set_session_context @key = N'${SESSION_CONTEXT_KEY}', @value = @p0`;
const SESSION_CONTEXT_LIMIT = 4000;

const tableKey = (t: TableRef): string => `${t.schema}\u0000${t.name}`;

export class MssqlSourceConnection implements SourceConnection {
  readonly kind = 'mssql';
  /** `schema\0table\0column` of the NOT NULL columns, from the last introspection. */
  private notNull = new Set<string>();
  /** Each table's keys and column types, from the last introspection (mutations find rows by them). */
  private keys = new Map<string, TableKeys>();
  /** Each table's primary key, from the last introspection (UPDATE captures pair rows by it). */
  private primaryKeys = new Map<string, string[]>();
  private log: MssqlEventLog | undefined;
  private readonly isNotNull = (t: TableRef, column: string): boolean => this.notNull.has(`${tableKey(t)}\u0000${column}`);

  constructor(readonly driver: MssqlDriver) {}

  typeOperators(type: string): TypeOperators | undefined {
    return spatialTypeOperators(type);
  }

  async introspect(): Promise<DatabaseCatalog> {
    let catalog: DatabaseCatalog;
    let declared: Map<string, Map<string, string>>;
    try {
      const sets = await this.driver.batch(INTROSPECTION_BATCH);
      catalog = catalogFromResultSets(sets);
      declared = declaredTypes(sets);
    } catch (e) {
      throw mssqlEngineError(e, 'introspection');
    }
    const notNull = new Set<string>();
    const keys = new Map<string, TableKeys>();
    const primaryKeys = new Map<string, string[]>();
    for (const t of catalog.tables) {
      if (t.primaryKey) primaryKeys.set(tableKey(t), t.primaryKey.columns);
      for (const c of t.columns) if (!c.nullable) notNull.add(`${tableKey(t)}\u0000${c.name}`);
      const uniques = new Map<string, string[]>();
      if (t.primaryKey) uniques.set(t.primaryKey.name, t.primaryKey.columns);
      for (const u of t.uniqueConstraints) uniques.set(u.name, u.columns);
      keys.set(tableKey(t), {
        key: t.primaryKey?.columns ?? t.uniqueConstraints[0]?.columns ?? null,
        uniques,
        types: declared.get(tableKey(t)) ?? new Map(),
      });
    }
    this.notNull = notNull;
    this.keys = keys;
    this.primaryKeys = primaryKeys;
    return catalog;
  }

  async health(timeoutMs = 5000, testSql = 'SELECT 1 AS ok'): Promise<SourceHealth> {
    const timestamp = new Date().toISOString();
    try {
      await this.driver.rows(testSql, [], Date.now() + timeoutMs);
      return { status: 'OK', error: null, timestamp };
    } catch (e) {
      const err = mssqlEngineError(e, testSql);
      if (err.code === 'time-limit-exceeded') return { status: 'TIMEOUT', error: `no answer within ${timeoutMs} ms`, timestamp };
      const internal = err.internal as { error?: { message?: string } } | undefined;
      return { status: 'ERROR', error: internal?.error?.message ?? err.message, timestamp };
    }
  }

  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return compileRootField(ir, options, this.isNotNull);
  }

  private statement(statement: CompiledStatement): MssqlStatement {
    const s = statement as MssqlStatement;
    if (!Array.isArray(s.order)) throw new EngineError('unexpected', 'statement compiled for another database kind');
    return s;
  }

  async runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[], options?: RunOptions): Promise<string> {
    const s = this.statement(statement);
    const params = bindSlots(s.order, values, sessionJson);
    try {
      const rows = await this.driver.rows(s.text, params, options?.deadline);
      const root = rows[0]?.['root'];
      return root === undefined || root === null ? 'null' : String(root);
    } catch (e) {
      throw mssqlEngineError(e, s.text);
    }
  }

  /** `/v1/graphql/explain`: the statement with its values inlined, and SQL Server's SHOWPLAN_TEXT. */
  async explainQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<{ sql: string; plan: string[] }> {
    const s = this.statement(statement);
    const params = bindSlots(s.order, values, sessionJson);
    try {
      return { sql: inlineValues(s.text, params), plan: await this.driver.plan(s.text, params) };
    } catch (e) {
      throw mssqlEngineError(e, s.text);
    }
  }

  compileMutation(ir: MutationIR, options: CompileOptions): CompiledMutation {
    return compileMutation(ir, options, this.isNotNull);
  }

  async runMutations(batch: readonly MutationRunInput[], sessionJson: string, options?: RunOptions): Promise<string[]> {
    const plans = batch.map((item) => {
      if (!(item.mutation instanceof MssqlCompiledMutation)) throw new EngineError('unexpected', 'mutation compiled for another database kind');
      return { plan: item.mutation, values: item.values };
    });
    try {
      return await this.driver.transaction(async (tx) => {
        await tx.rows(SET_SESSION_SQL, [sessionJson.length <= SESSION_CONTEXT_LIMIT ? sessionJson : null], options?.deadline);
        try {
          const out: string[] = [];
          for (const { plan, values } of plans) out.push(await new MutationRun(tx, plan, values, sessionJson, (t) => this.tableKeys(t), options?.deadline).run());
          return out;
        } finally {
          // SESSION_CONTEXT outlives the transaction on a pooled connection: no later writer may inherit it.
          await tx.rows(SET_SESSION_SQL, [null]).catch(() => undefined);
        }
      });
    } catch (e) {
      throw mssqlEngineError(e, 'COMMIT');
    }
  }

  /** The source's event log (event triggers), one per connection. */
  eventLog(): MssqlEventLog {
    this.log ??= new MssqlEventLog(this.driver, (t) => this.primaryKeys.get(tableKey(t)) ?? null);
    return this.log;
  }

  private tableKeys(table: TableRef): TableKeys {
    const found = this.keys.get(tableKey(table));
    if (!found) throw new EngineError('unexpected', `table ${quoteTable(table)} was not found in the source's last introspection`);
    return found;
  }

  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    return { rows: await this.driver.rows(sql, values) };
  }

  poolStats(): PoolStats {
    return this.driver.stats() ?? { total: 0, idle: 0, waiting: 0 };
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
