/**
 * The database-kind contract: what a plugin implements to serve a kind of database (`postgres`,
 * and third-party kinds). The core never speaks a dialect: it hands the plugin neutral IR and
 * receives statements and JSON text back.
 */
import type { DatabaseCatalog } from './catalog.js';
import type { CompileOptions, RootFieldIR, TypedValueIR } from '../graphql/ir.js';
import type { MutationIR } from '../graphql/ir-mutation.js';
import type { RawSqlOptions, RawSqlResult } from './raw-sql.js';

export interface SourceHealth {
  status: 'OK' | 'TIMEOUT' | 'ERROR' | 'FAILED';
  error: unknown;
  timestamp: string;
}

/**
 * A compiled statement. Parameter 1 is always the session variables as JSON text; parameters
 * 2.. are `params`, in order, resolved per request from constants and GraphQL variables.
 */
export interface CompiledStatement {
  text: string;
  params: TypedValueIR[];
  /** A stable name for a server-side prepared statement (derived from the text). */
  name: string;
}

/**
 * A compiled mutation root field. Opaque to the core beyond `params`: the values the executor
 * resolves per request (constants, GraphQL variables, session variables), in order; the plugin
 * keeps whatever else it needs (statements, how nested inserts chain) on its own subtype.
 */
export interface CompiledMutation {
  params: TypedValueIR[];
}

/** One compiled mutation with its resolved `params` values (JS values, null for SQL NULL). */
export interface MutationRun {
  mutation: CompiledMutation;
  values: readonly unknown[];
}

export interface DatabaseKind {
  /** The kind as written in metadata (`postgres`). */
  readonly kind: string;
  /** The metadata operation prefix (`pg`). */
  readonly prefix: string;
  /**
   * Check a source's `configuration`; throw an EngineError with a path under `path` when it is
   * invalid. No I/O.
   */
  validateConfiguration(configuration: unknown, path: string): void;
  /** Open (lazily) a connection pool for a source. Must not throw for an unreachable database. */
  connect(sourceName: string, configuration: unknown): SourceConnection;
}

export interface SourceConnection {
  readonly kind: string;
  introspect(): Promise<DatabaseCatalog>;
  health(timeoutMs?: number): Promise<SourceHealth>;
  /** Compile one root field into one statement returning a single row with one JSON text column. */
  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement;
  /**
   * Run a compiled read. `values` are the resolved `params` (JS values, null for SQL NULL).
   * Returns the JSON text exactly as the database produced it.
   */
  runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<string>;
  /**
   * For the explain API: the statement with its parameters written as literals, and the
   * database's plan for it (one line per entry). Optional: kinds without it cannot be explained.
   */
  explainQuery?(statement: CompiledStatement, sessionJson: string, values: readonly unknown[]): Promise<{ sql: string; plan: string[] }>;
  /**
   * `run_sql`: several statements in one transaction, the last one's result returned. Optional:
   * kinds without it answer `run_sql` with not-supported.
   */
  runSql?(sql: string, options: RawSqlOptions): Promise<RawSqlResult>;
  /**
   * Compile one mutation root field. Kinds that cannot write leave this out, and a mutation
   * against their sources is refused at plan time. The result is cached with the plan.
   */
  compileMutation?(ir: MutationIR, options: CompileOptions): CompiledMutation;
  /**
   * Run the mutation root fields of one request against this source, in order, in ONE
   * transaction: any failure rolls every one of them back. The session JSON is made visible to
   * the database (for Postgres, the transaction-local setting `svc.user`) before anything runs.
   * Returns each field's JSON text, in order.
   */
  runMutations?(batch: readonly MutationRun[], sessionJson: string): Promise<string[]>;
  /** Run SQL text as an admin would (introspection helpers, tests). */
  execute(sql: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  close(): Promise<void>;
}
