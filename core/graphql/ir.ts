/**
 * The database-neutral query IR. The IR builder turns a validated GraphQL root field into one of
 * these, with the role's permissions already folded in (permission filters and limits sit beside
 * the user's own arguments); a database-kind plugin compiles it into one statement of its dialect.
 *
 * Values never carry SQL text. A value is a constant, a GraphQL variable (so one compiled plan
 * serves every request with the same query text) or a session variable (so one plan serves every
 * user of a role).
 */

import type { AggregatePredicateFn } from './aggregate-predicates.js';

export interface TableRef {
  schema: string;
  name: string;
}

/** A value placed into the statement as a parameter. `dbType` is the database type to cast to. */
export type ValueIR =
  | { kind: 'const'; value: unknown }
  | { kind: 'variable'; name: string; path: readonly (string | number)[] }
  | { kind: 'session'; name: string };

export interface TypedValueIR {
  value: ValueIR;
  /** Database type name of the value; `array: true` means an array of that type. */
  dbType: string;
  array?: boolean;
}

/** What one argument of a function call receives. */
export type FunctionArgValueIR =
  | { kind: 'value'; value: TypedValueIR }
  /** The session variables as one JSON value, of the argument's type (`json`/`jsonb`). */
  | { kind: 'session'; dbType: string }
  /** The row the call is made for (computed fields): the current row of the table. */
  | { kind: 'row' }
  /** A column of the row the call is made for (the warehouse kind's `argument_mapping`). */
  | { kind: 'column'; name: string };

export interface FunctionArgIR {
  /** Null: passed by position. Positional arguments come first, in the function's order. */
  name: string | null;
  value: FunctionArgValueIR;
}

/** A call of a database function (a tracked function, or a computed field's). */
export interface FunctionCallIR {
  function: TableRef;
  args: FunctionArgIR[];
}

/**
 * Something scalar computed per row: a column, a column cast to another type (jsonb `_cast`),
 * or a scalar computed field (a function of the row).
 */
export type ScalarExprIR =
  /** `visibleWhen`: the cell is null unless the row passes it (inherited roles' hidden cells). */
  | { kind: 'column'; name: string; type: string; visibleWhen?: BoolExpIR }
  | { kind: 'cast'; expr: ScalarExprIR; toType: string }
  | { kind: 'computed'; call: FunctionCallIR; type: string; visibleWhen?: BoolExpIR };

export type ComparisonOp =
  | '_eq' | '_neq' | '_gt' | '_lt' | '_gte' | '_lte'
  | '_in' | '_nin' | '_is_null'
  | '_like' | '_nlike' | '_ilike' | '_nilike' | '_similar' | '_nsimilar'
  | '_regex' | '_nregex' | '_iregex' | '_niregex'
  | '_contains' | '_contained_in' | '_has_key' | '_has_keys_any' | '_has_keys_all'
  // Column-to-column comparisons, used by permissions.
  | '_ceq' | '_cneq' | '_cgt' | '_clt' | '_cgte' | '_clte';

export type BoolExpIR =
  | { kind: 'true' }
  | { kind: 'false' }
  | { kind: 'and'; items: BoolExpIR[] }
  | { kind: 'or'; items: BoolExpIR[] }
  | { kind: 'not'; item: BoolExpIR }
  /** `_is_null` carries a boolean value; `_in`/`_nin`/`_has_keys_*` carry arrays. */
  | { kind: 'compare'; lhs: ScalarExprIR; op: ComparisonOp; rhs: TypedValueIR }
  /**
   * An operator the source's kind contributes for one of its types (core/db/operators.ts):
   * `op` is the operator's reference name (`_st_d_within`), `args` its values by field name
   * (`value` for operators taking one value). The kind compiles it.
   */
  | { kind: 'kindOperator'; lhs: ScalarExprIR; op: string; args: Readonly<Record<string, TypedValueIR>> }
  /** Column-to-column comparison; `root` refers to the outermost table of a permission filter. */
  | { kind: 'compareColumn'; lhs: ScalarExprIR; op: ComparisonOp; rhs: { column: string; root: boolean } }
  /** Through a relationship: EXISTS a related row (mapping: this column → target column) matching `where`. */
  | { kind: 'relationship'; target: TableRef; mapping: Array<[string, string]>; where: BoolExpIR }
  /** `_exists`: an uncorrelated EXISTS over any table of the source. */
  | { kind: 'exists'; target: TableRef; where: BoolExpIR }
  /** Through a computed field returning rows of `target`: EXISTS a row of the call matching `where`. */
  | { kind: 'computedTable'; call: FunctionCallIR; target: TableRef; where: BoolExpIR }
  /** Aggregate predicate over an array relationship: e.g. count of related rows matching `filter` > 2. */
  | {
      kind: 'aggregatePredicate';
      target: TableRef;
      mapping: Array<[string, string]>;
      /** See core/graphql/aggregate-predicates.ts; `args` are column names (`corr`: Y then X). */
      fn: AggregatePredicateFn;
      args: string[];
      distinct: boolean;
      filter: BoolExpIR | null;
      predicate: { op: ComparisonOp; rhs: TypedValueIR };
    };

export type OrderExprIR =
  /** `visibleWhen`: as for ScalarExprIR, the key is null on rows where the role sees no value. */
  | { kind: 'column'; name: string; type: string; visibleWhen?: BoolExpIR }
  /** Order by a scalar computed field of the row (`visibleWhen` as for columns). */
  | { kind: 'computed'; call: FunctionCallIR; type: string; visibleWhen?: BoolExpIR }
  /** Order by a column of an object relationship's target (one row at most). */
  | { kind: 'objectRelationship'; target: TableRef; mapping: Array<[string, string]>; filter: BoolExpIR | null; expr: OrderExprIR }
  /** Order by an aggregate over an array relationship (`count`, or `max.column`, ...). */
  | {
      kind: 'arrayAggregate';
      target: TableRef;
      mapping: Array<[string, string]>;
      filter: BoolExpIR | null;
      fn: 'count' | AggregateFn;
      column?: { name: string; type: string };
    }
  /** Order by an aggregate over the rows a computed field returns (`<field>_aggregate`). */
  | {
      kind: 'computedAggregate';
      call: FunctionCallIR;
      target: TableRef;
      filter: BoolExpIR | null;
      fn: 'count' | AggregateFn;
      column?: { name: string; type: string };
    };

export interface OrderByIR {
  expr: OrderExprIR;
  direction: 'asc' | 'desc';
  nulls: 'first' | 'last';
}

export type AggregateFn =
  | 'sum' | 'avg' | 'min' | 'max'
  | 'stddev' | 'stddev_pop' | 'stddev_samp'
  | 'variance' | 'var_pop' | 'var_samp';

export type FieldIR =
  /**
   * `jsonPath`: a json/jsonb column's `path` argument, the value at that path (`#>`). `upper`: the
   * text value upper-cased (enum-table values under the graphql-default naming convention).
   * `visibleWhen`: the value is null unless the row passes it (inherited roles' hidden cells).
   */
  | { kind: 'column'; alias: string; name: string; type: string; jsonPath?: Array<string | number>; upper?: true; visibleWhen?: BoolExpIR }
  | { kind: 'typename'; alias: string; typeName: string }
  | { kind: 'objectRelationship'; alias: string; mapping: Array<[string, string]>; select: SelectIR }
  | { kind: 'arrayRelationship'; alias: string; mapping: Array<[string, string]>; select: SelectIR }
  | { kind: 'arrayAggregate'; alias: string; mapping: Array<[string, string]>; aggregate: AggregateSelectIR }
  /** A scalar computed field: its function called with the row (and the field's arguments). */
  | { kind: 'computedScalar'; alias: string; call: FunctionCallIR; type: string; visibleWhen?: BoolExpIR }
  /** A computed field returning rows of a table: `select.function` is called with the row. */
  | { kind: 'computedTable'; alias: string; select: SelectIR }
  /**
   * A field answered outside this source (a remote relationship): the database puts an object
   * of the join columns (`{<column>: value}`) under `alias`, and the executor replaces it with
   * what `join` resolves for all rows of the response at once (one call per batch).
   */
  | { kind: 'remoteJoin'; alias: string; columns: Array<{ name: string; type: string }>; join: RemoteJoin }
  /**
   * Relay's globally unique id of the row: base64 of the JSON array `[1, "<schema>", "<table>",
   * <pk value>, ...]` (the reference engine's version-1 node id), primary-key values as JSON.
   */
  | { kind: 'nodeId'; alias: string; table: TableRef; columns: Array<{ name: string; type: string }> }
  /** Relay's `<rel>_connection`: a connection over the related rows. */
  | { kind: 'arrayConnection'; alias: string; mapping: Array<[string, string]>; connection: ConnectionSelectIR };

/** What a request's remote parts run with: the session, the variables and the client's headers. */
export interface ExternalContext {
  session: { role: string; variables: Readonly<Record<string, string>> };
  variables: Readonly<Record<string, unknown>>;
  /** The client's request headers (lower-case names); empty for transports without any. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request's query text (actions send it to their handler as `request_query`). */
  query?: string;
  /**
   * The operation's time limit (API limits), for the statements run on its behalf after the
   * external call: an action's relationships, a join to another source.
   */
  deadline?: number;
  /** The client's operation name: remote schemas get their operation under the same name. */
  operationName?: string;
  /**
   * Headers to add to the client's HTTP response (a remote schema's `Set-Cookie`); absent for
   * transports that have no response to add them to (websockets).
   */
  responseHeaders?: Array<[string, string]>;
}

/**
 * Resolves one remote-relationship field for a batch of parent rows: `keys[i]` holds the join
 * values of row i; the answer holds one value per row (null when a key is null). One call for
 * the whole batch, never one per row. Keys and answers are `parseLossless` values: a number a
 * double cannot hold is a marked string (`unmarkLossless` gives its digits), and the answers
 * are serialised with `stringifyLossless`.
 */
export interface RemoteJoin {
  resolve(keys: ReadonlyArray<Readonly<Record<string, unknown>>>, ctx: ExternalContext): Promise<unknown[]>;
}

/** The rows a select reads and how: shared by list, single-row and aggregate selects. */
export interface SelectFromIR {
  /** The table read, or whose row type `function` returns. */
  from: TableRef;
  /** Rows come from this call instead of the table (tracked functions, table computed fields). */
  function?: FunctionCallIR;
  /** The user's `where`. */
  where: BoolExpIR | null;
  /** The role's row filter; AND-ed with `where`. Null for admin. */
  permissionFilter: BoolExpIR | null;
  orderBy: OrderByIR[];
  /** Column names for DISTINCT ON; the compiler orders by them first, as the database requires. */
  distinctOn: string[];
  /** Inherited roles: per DISTINCT ON column, the rows on which the role sees its value. */
  distinctVisibleWhen?: Readonly<Record<string, BoolExpIR>>;
  limit: TypedValueIR | null;
  offset: TypedValueIR | null;
  /** The role's row cap (select permission `limit`); the compiler applies min(limit, cap). */
  permissionLimit: number | null;
}

export interface SelectIR extends SelectFromIR {
  fields: FieldIR[];
}

export type AggregateOpIR =
  /** `visibleWhen`: per column, the rows on which the role sees its value (inherited roles). */
  | { kind: 'count'; alias: string; columns: string[]; distinct: boolean; visibleWhen?: Readonly<Record<string, BoolExpIR>> }
  | { kind: 'typename'; alias: string; typeName: string }
  | {
      kind: 'fn';
      alias: string;
      fn: AggregateFn;
      fields: Array<
        | { kind: 'column'; alias: string; name: string; type: string; visibleWhen?: BoolExpIR }
        | { kind: 'typename'; alias: string; typeName: string }
      >;
    };

export type AggregateFieldIR =
  | { kind: 'aggregate'; alias: string; ops: AggregateOpIR[] }
  | { kind: 'nodes'; alias: string; fields: FieldIR[] }
  | { kind: 'typename'; alias: string; typeName: string };

export interface AggregateSelectIR extends SelectFromIR {
  fields: AggregateFieldIR[];
}

/**
 * Relay's connection (`<t>_connection`, `<rel>_connection`): rows in `orderBy` order (which ends
 * with the primary key, so it is total), cut at a cursor (`split`) and to a count (`slice`).
 * Paging happens in the database: keyset on the cursor values, the count plus one row to know
 * whether more follow. A row's cursor is the JSON object of its order-by values, each at its
 * `cursorPaths` entry (`["id"]`, `["author", "name"]`), base64-encoded.
 */
export interface ConnectionSelectIR extends SelectFromIR {
  /** Per `orderBy` item, where its value sits in the cursor object. */
  cursorPaths: string[][];
  /**
   * Rows strictly after (or before) the cursor in `orderBy` order; `values` are the cursor's, per
   * leading `orderBy` item (all of them, or the DISTINCT ON ones: one row per distinct value).
   */
  split: {
    kind: 'after' | 'before';
    values: TypedValueIR[];
    /** Per value: whether its key can never be NULL (a NOT NULL column), so no NULL case is needed. */
    notNull: boolean[];
  } | null;
  /** The first or last `count` rows (after the split). */
  slice: { kind: 'first' | 'last'; count: TypedValueIR } | null;
  fields: ConnectionFieldIR[];
}

export type PageInfoFieldIR =
  | { kind: 'typename'; alias: string; typeName: string }
  | { kind: 'hasNextPage' | 'hasPreviousPage' | 'startCursor' | 'endCursor'; alias: string };

export type EdgeFieldIR =
  | { kind: 'typename'; alias: string; typeName: string }
  | { kind: 'cursor'; alias: string }
  | { kind: 'node'; alias: string; fields: FieldIR[] };

export type ConnectionFieldIR =
  | { kind: 'typename'; alias: string; typeName: string }
  | { kind: 'pageInfo'; alias: string; fields: PageInfoFieldIR[] }
  | { kind: 'edges'; alias: string; fields: EdgeFieldIR[] };

/** One root field against a database source: what the database-kind plugin compiles. */
export type RootFieldIR =
  | { kind: 'select'; source: string; select: SelectIR; single: boolean }
  | { kind: 'aggregate'; source: string; aggregate: AggregateSelectIR }
  /** Relay's `<t>_connection` (kinds with the `relay` capability). */
  | { kind: 'connection'; source: string; connection: ConnectionSelectIR };

/** Options that change the shape of compiled SQL for every query of a server. */
export interface CompileOptions {
  /** Return bigint, numeric, decimal and double precision values as strings. */
  stringifyNumericTypes: boolean;
}

/**
 * A streaming subscription field (`<t>_stream`): the rows after the subscriber's cursor, in
 * cursor order, `batchSize` at a time (rows tying with the last one come along, so equal cursor
 * values are never split across batches). `select` carries the user's `where` and the role's
 * filter; its ordering and paging are the stream's own.
 */
export interface StreamIR {
  kind: 'stream';
  source: string;
  select: SelectIR;
  cursor: {
    column: string;
    /** The column's database type: the cursor is compared and cast as it. */
    type: string;
    direction: 'asc' | 'desc';
    /** The subscriber's `initial_value`: where its cursor starts. */
    initial: TypedValueIR;
  };
  batchSize: TypedValueIR;
}

/** One field of a subscription's response, as its one multiplexed statement builds it. */
export type SubscriptionFieldIR =
  | { kind: 'root'; key: string; ir: RootFieldIR }
  | { kind: 'stream'; key: string; ir: StreamIR }
  /** A source's root-field namespace: an object of fields. */
  | { kind: 'namespace'; key: string; fields: SubscriptionFieldIR[] }
  | { kind: 'typename'; key: string; value: string };
