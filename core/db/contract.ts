/**
 * The database-kind contract: what a plugin implements to serve a kind of database (`postgres`,
 * and third-party kinds). The core never speaks a dialect: it hands the plugin neutral IR and
 * receives statements and JSON text back.
 */
import type { DatabaseCatalog } from './catalog.js';
import type { CompileOptions, RootFieldIR, TypedValueIR } from '../graphql/ir.js';

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
  /** Run SQL text as an admin would (introspection helpers, tests). */
  execute(sql: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  close(): Promise<void>;
}
