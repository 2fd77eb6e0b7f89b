/**
 * The database-kind contract: what a plugin implements to serve a kind of database (`postgres`,
 * and third-party kinds). The core never speaks a dialect: it hands the plugin neutral IR and
 * receives statements and JSON text back.
 */
import type { CatalogTable, DatabaseCatalog } from './catalog.js';
import type { CompileOptions, RootFieldIR, SubscriptionFieldIR, TableRef, TypedValueIR } from '../graphql/ir.js';
import type { MutationIR } from '../graphql/ir-mutation.js';
import type { RawSqlOptions, RawSqlResult } from './raw-sql.js';
import type { ServerConfig } from '../config/types.js';
import type { QualifiedTable, SourceMetadata } from '../metadata/types.js';
import type { EventTriggerSupport } from './event-triggers.js';
import type { TypeOperators } from './operators.js';
import type { ScalarTypeTable } from './scalar-types.js';

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

/**
 * A subscription compiled for multiplexing: ONE statement serves a batch of cohorts, each with
 * its own session variables, values (`params`, as for CompiledStatement) and stream cursor.
 */
export interface MultiplexedStatement {
  /** Identity of the statement (its text, or a digest of it): subscriptions with equal keys share a poller. */
  key: string;
  params: TypedValueIR[];
  /** Set for streaming subscriptions: every run returns each cohort's next cursor. */
  streaming: boolean;
}

/** One cohort of a multiplexed run: subscribers with equal session variables, values and cursor. */
export interface CohortInput {
  /** A UUID naming the cohort in the statement's answer. */
  id: string;
  /** The session variables the statement reads (lower-cased names). */
  session: Readonly<Record<string, string>>;
  /** The resolved `params` values (JS values, null for SQL NULL). */
  values: readonly unknown[];
  /** Streams: the cursor, a JS value the first time and then whatever the last run returned. */
  cursor?: unknown;
}

export interface CohortOutput {
  id: string;
  /** The cohort's response data as JSON text (the `data` object). */
  result: string;
  /** Streams: the next cursor, or null when no row was returned (the old one stays). */
  cursor: string | null;
}

/** Receives what a change feed learns about writes. */
export interface ChangeFeedListener {
  /** A statement wrote `table` and committed. */
  changed(table: TableRef): void;
  /** The feed lost its connection: until `restored`, writes go unnoticed, so poll everything. */
  lost(): void;
  /** The feed listens again (writes made while it was down are not reported: assume everything changed). */
  restored(): void;
}

/** Tells which tables saw writes, so pollers skip refetches nothing could have changed. */
export interface ChangeFeed {
  /**
   * Starts watching `tables` (idempotent). Resolves false when some of them cannot be watched
   * (no privilege, a view): the caller must then keep polling them.
   */
  watch(tables: readonly TableRef[]): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Per-run options of a read or a mutation batch. `deadline` (a `Date.now()` time): once it
 * passes, the kind cancels the running statement in the database (not only the wait for it) and
 * throws EngineError `time-limit-exceeded`; a transaction is rolled back.
 */
export interface RunOptions {
  deadline?: number;
}

/**
 * What a kind supports beyond tables, relationships and permissions (which every kind has). The
 * metadata operations that need a capability exist only for kinds declaring it: a kind without
 * `functions` has no `<prefix>_track_function`.
 */
export interface KindCapabilities {
  /** Tracked functions and function permissions. */
  functions?: boolean;
  /** Computed fields over table rows. */
  computedFields?: boolean;
  /** Enum tables (`<prefix>_set_table_is_enum`, `is_enum` in track_table). */
  enumTables?: boolean;
  /** `<prefix>_run_sql` (the connection implements `runSql`). */
  runSql?: boolean;
  /** Insert/update/delete root fields (the connection implements `compileMutation`/`runMutations`). */
  mutations?: boolean;
  /** Event triggers on the kind's tables. */
  eventTriggers?: boolean;
  /** Remote relationships from the kind's tables (the compiler handles `remoteJoin` fields). */
  remoteRelationships?: boolean;
  /** `distinct_on` arguments (the compiler handles `SelectFromIR.distinctOn`); without it the schema has none. */
  distinctOn?: boolean;
  /** Subscription root fields (the connection implements `compileMultiplexed`/`runMultiplexed`); without it none. */
  subscriptions?: boolean;
  /** Relay's `/v1beta1/relay` (the compiler handles `connection` root fields and `nodeId`/`arrayConnection` fields). */
  relay?: boolean;
}

export type KindCapability = keyof KindCapabilities;

/** A relationship that resolved against the catalog, as a kind's join rules see it. */
export interface RelationshipCheck {
  kind: 'object' | 'array';
  /** Defined through a foreign key (on either table) or by a manual column mapping. */
  using: 'foreign_key' | 'manual';
  table: CatalogTable;
  target: CatalogTable;
  /** (column of `table`, column of `target`) pairs the join compares. */
  mapping: ReadonlyArray<readonly [string, string]>;
}

export interface DatabaseKind {
  /** The kind as written in metadata (`postgres`). */
  readonly kind: string;
  /** The metadata operation prefix (`pg`). */
  readonly prefix: string;
  /**
   * The key a table's schema has in this kind's metadata documents (`dataset` for the warehouse
   * kind: `{dataset, name}`); `schema` when absent. Exports write tables with it; every
   * operation and replace_metadata read either key.
   */
  readonly tableSchemaKey?: string;
  /**
   * How a computed field's function gets the row, with `capabilities.computedFields`: the row
   * itself (`table_argument`, the default), or columns mapped to its arguments
   * (`argument_mapping`, with the `return_table` its rows are: the warehouse kind).
   */
  readonly computedFieldArguments?: 'row' | 'columns';
  /** What the kind supports; operations needing a capability it lacks do not exist for it. */
  readonly capabilities?: Readonly<KindCapabilities>;
  /**
   * The kind's column types: GraphQL scalar names, which compare, which are numeric or strings
   * (core/db/scalar-types.ts). Without it every type is an opaque scalar named after itself.
   */
  readonly scalarTypes?: ScalarTypeTable;
  /**
   * Check a source's `configuration`; throw an EngineError with a path under `path` when it is
   * invalid. No I/O.
   */
  validateConfiguration(configuration: unknown, path: string): void;
  /** Open (lazily) a connection pool for a source. Must not throw for an unreachable database. */
  connect(sourceName: string, configuration: unknown): SourceConnection;
  /**
   * The `default` source a new catalog starts with when the engine's own database is of this kind
   * (given by `--database-url`, or embedded), else null. The first loaded kind answering wins.
   */
  defaultSource?(config: ServerConfig): SourceMetadata | null;
  /**
   * Present when the kind captures row changes as events (core/db/event-triggers.ts); its
   * `<prefix>_create_event_trigger` family of operations exists only then.
   */
  readonly eventTriggers?: EventTriggerSupport;
  /**
   * Join rules of a database that cannot join every pair of tables (Citus): the reason a
   * relationship is refused, or null when the database can run it. Creating a refused
   * relationship fails with `not-supported` and that reason; one already in the metadata is an
   * inconsistent object. Without it every relationship that resolves is allowed.
   */
  checkRelationship?(check: RelationshipCheck): string | null;
}

export interface SourceConnection {
  readonly kind: string;
  introspect(): Promise<DatabaseCatalog>;
  /**
   * Optional: a token for the state of the database's catalog, much cheaper than an
   * introspection (one small statement). Equal tokens mean the catalog is unchanged, so a catalog
   * introspected after the earlier token was read is still accurate and is reused; a kind must
   * not answer an equal token for a changed catalog (a spurious difference only costs an
   * introspection).
   */
  catalogFingerprint?(): Promise<string>;
  /**
   * Optional, with `catalogFingerprint`: `earlier` (introspected after `earlierToken` was read)
   * brought up to the state of `token` by reading only what changed, with every unchanged entry
   * kept as the same object; the result must equal what `introspect()` would answer. Null when the
   * kind cannot confine the change (the caller then introspects).
   */
  refreshCatalog?(earlier: DatabaseCatalog, earlierToken: string, token: string): Promise<DatabaseCatalog | null>;
  /**
   * Extra comparison operators for a (non-array) column type of this source, e.g. PostGIS's
   * `_st_intersects` for `geometry`; undefined when the type has none.
   */
  typeOperators?(type: string): TypeOperators | undefined;
  /** Runs `testSql` (the kind's own trivial statement when absent) within `timeoutMs`. */
  health(timeoutMs?: number, testSql?: string): Promise<SourceHealth>;
  /** Compile one root field into one statement returning a single row with one JSON text column. */
  compileQuery(ir: RootFieldIR, options: CompileOptions): CompiledStatement;
  /**
   * Run a compiled read. `values` are the resolved `params` (JS values, null for SQL NULL).
   * Returns the JSON text exactly as the database produced it.
   */
  runQuery(statement: CompiledStatement, sessionJson: string, values: readonly unknown[], options?: RunOptions): Promise<string>;
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
  runMutations?(batch: readonly MutationRun[], sessionJson: string, options?: RunOptions): Promise<string[]>;
  /**
   * Compile a subscription's fields (all against this source) into one multiplexed statement.
   * Optional: kinds without it refuse subscriptions. The result is cached with the plan.
   */
  compileMultiplexed?(fields: readonly SubscriptionFieldIR[], options: CompileOptions): MultiplexedStatement;
  /** Run a multiplexed statement ONCE for a batch of cohorts; one output per cohort, any order. */
  runMultiplexed?(statement: MultiplexedStatement, cohorts: readonly CohortInput[]): Promise<CohortOutput[]>;
  /**
   * A feed of committed writes for change tracking, or null when this source cannot deliver one
   * (then subscriptions poll). Called once per source connection; the feed closes with it.
   */
  changeFeed?(listener: ChangeFeedListener): Promise<ChangeFeed | null>;
  /**
   * Removes what change tracking installed in the database: from `tables`, or from every table
   * (and its shared objects) when 'all'. Resolves the number of tables it was removed from.
   * Optional: only kinds with `changeFeed` install anything.
   */
  dropChangeTracking?(tables: readonly TableRef[] | 'all'): Promise<number>;
  /**
   * With `capabilities.enumTables`: the rows of an enum table (`is_enum`), each key and comment
   * read as text, in one statement. A failure rejects with the message the reference engine
   * reports for it (PostgreSQL: `postgres error: ...`). Without it, enum tables are
   * inconsistent.
   */
  readEnumValues?(table: QualifiedTable, keyColumn: string, commentColumn: string | null): Promise<EnumValueRow[]>;
  /** Run SQL text as an admin would (introspection helpers, tests). */
  execute(sql: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** Connections open / idle / callers waiting, for the metrics API. Optional: kinds without a pool leave it out. */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

/** One row of an enum table: its value and optional description. */
export interface EnumValueRow {
  value: string;
  description: string | null;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}
