/** A `maria_` source: its pool, introspection, compilation, the read path and mutations. */
import {
  type CohortInput,
  type CohortOutput,
  type CompiledMutation,
  type CompiledStatement,
  type CompileOptions,
  type DatabaseCatalog,
  EngineError,
  giveUpAtDeadline,
  type MultiplexedStatement,
  type MutationIR,
  type MutationRun as MutationRunInput,
  type RootFieldIR,
  type RunOptions,
  type SourceConnection,
  type SourceHealth,
  type SubscriptionFieldIR,
  tableKey,
  type TableRef,
} from '../../../core/sdk/index.js';
import type { ResolvedMariaConnection } from './config.js';
import { mariaEngineError } from './errors.js';
import { introspectMaria } from './introspect.js';
import { MariaPool, type Queryable } from './pool.js';
import { compileRootField, type MariaStatement } from './sql/compile.js';
import { compileMutation, MariaCompiledMutation } from './sql/mutation.js';
import { MutationRun, readTableKeys, type TableKeys } from './sql/mutation-run.js';
import { bindSlots } from './sql/template.js';
import { compileSubscription, runCohort, type MariaMultiplexedStatement } from './subscriptions.js';

export class MariaSourceConnection implements SourceConnection {
  readonly kind = 'mariadb';
  readonly pool: MariaPool;
  private keys = new Map<string, Promise<TableKeys>>();
  /** `schema\0table\0column` of the NOT NULL columns, from the last introspection. */
  private notNull = new Set<string>();
  private readonly isNotNull = (t: TableRef, column: string): boolean => this.notNull.has(`${t.schema}\0${t.name}\0${column}`);

  constructor(resolve: () => ResolvedMariaConnection) {
    this.pool = new MariaPool(resolve);
  }

  async introspect(): Promise<DatabaseCatalog> {
    // The schema may have changed: keys read for mutations are read again.
    this.keys = new Map();
    try {
      const catalog = await introspectMaria(this.pool, this.pool.database);
      const notNull = new Set<string>();
      for (const t of catalog.tables) for (const c of t.columns) if (!c.nullable) notNull.add(`${t.schema}\0${t.name}\0${c.name}`);
      this.notNull = notNull;
      return catalog;
    } catch (e) {
      throw mariaEngineError(e, 'introspection');
    }
  }

  async health(timeoutMs = 5000, testSql = 'SELECT 1'): Promise<SourceHealth> {
    const timestamp = new Date().toISOString();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    try {
      const r = await Promise.race([this.pool.rows(testSql).then(() => 'ok' as const), timeout]);
      return r === 'ok' ? { status: 'OK', error: null, timestamp } : { status: 'TIMEOUT', error: `no answer within ${timeoutMs} ms`, timestamp };
    } catch (e) {
      return { status: 'ERROR', error: (e as Error).message, timestamp };
    } finally {
      clearTimeout(timer);
    }
  }

  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement {
    return compileRootField(ir, options, this.isNotNull);
  }

  async runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[], options?: RunOptions): Promise<string> {
    const s = statement as MariaStatement;
    if (!Array.isArray(s.order)) throw new EngineError('unexpected', 'statement compiled for another database kind');
    const params = bindSlots(s.order, values, sessionJson);
    try {
      const deadline = options?.deadline;
      let rows;
      if (deadline === undefined) rows = await this.pool.rows(s.text, params);
      else {
        // The server stops the statement itself (whole seconds, so few statement texts); the
        // race answers at the deadline exactly.
        const seconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
        rows = await giveUpAtDeadline(this.pool.rows(`SET STATEMENT max_statement_time=${seconds} FOR ${s.text}`, params), deadline);
      }
      const root = rows[0]?.['root'];
      return root === undefined || root === null ? 'null' : String(root);
    } catch (e) {
      throw mariaEngineError(e, s.text);
    }
  }

  /** `/v1/graphql/explain`: the statement with its values inlined, and MariaDB's EXPLAIN, one line per row. */
  async explainQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<{ sql: string; plan: string[] }> {
    const s = statement as MariaStatement;
    if (!Array.isArray(s.order)) throw new EngineError('unexpected', 'statement compiled for another database kind');
    const params = bindSlots(s.order, values, sessionJson);
    try {
      const rows = await this.pool.rows(`EXPLAIN ${s.text}`, params);
      const plan = rows.map((r) =>
        Object.entries(r)
          .filter(([, v]) => v !== null)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' '),
      );
      return { sql: await this.pool.inline(s.text, params), plan };
    } catch (e) {
      throw mariaEngineError(e, s.text);
    }
  }

  /** Subscriptions: the fields' ordinary statements, run per cohort (subscriptions.ts says why). */
  compileMultiplexed(fields: readonly SubscriptionFieldIR[], options: CompileOptions): MultiplexedStatement {
    return compileSubscription(fields, options, this.isNotNull);
  }

  async runMultiplexed(statement: MultiplexedStatement, cohorts: readonly CohortInput[]): Promise<CohortOutput[]> {
    const s = statement as MariaMultiplexedStatement;
    if (!Array.isArray(s.parts)) throw new EngineError('unexpected', 'subscription compiled for another database kind');
    return Promise.all(cohorts.map((c) => runCohort(s, c, (st, sessionJson, values) => this.runQuery(st, sessionJson, values))));
  }

  compileMutation(ir: MutationIR, options: CompileOptions): CompiledMutation {
    return compileMutation(ir, options);
  }

  async runMutations(batch: readonly MutationRunInput[], sessionJson: string, options?: RunOptions): Promise<string[]> {
    const plans = batch.map((item) => {
      if (!(item.mutation instanceof MariaCompiledMutation)) throw new EngineError('unexpected', 'mutation compiled for another database kind');
      return { plan: item.mutation, values: item.values };
    });
    try {
      return await this.pool.transaction(async (tx) => {
        const out: string[] = [];
        for (const { plan, values } of plans) out.push(await new MutationRun(tx, plan, values, sessionJson, (q, t) => this.tableKeys(q, t), options?.deadline).run());
        return out;
      });
    } catch (e) {
      throw mariaEngineError(e, 'COMMIT');
    }
  }

  private tableKeys(q: Queryable, table: TableRef): Promise<TableKeys> {
    const k = tableKey(table);
    let found = this.keys.get(k);
    if (!found) {
      found = readTableKeys(q, table);
      this.keys.set(k, found);
      found.catch(() => this.keys.delete(k));
    }
    return found;
  }

  async execute(sql: string, values: readonly unknown[] = []): Promise<{ rows: Record<string, unknown>[] }> {
    return { rows: await this.pool.rows(sql, values) };
  }


  close(): Promise<void> {
    return this.pool.close();
  }
}
