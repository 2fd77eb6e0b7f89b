/**
 * A bound on the prepared statements of one connection. Statements are named after their text
 * (sql/statement-name.ts), so every new shape of a query (another selection, a mutation writing
 * another number of rows) prepares one more statement on each connection that runs it, and
 * nothing ever removes them: a long-lived connection's memory in the server would grow without
 * bound. Each connection keeps the order in which its statements were last executed (every Bind
 * names its statement, whether pg's query or the one-trip pipeline sent it); when a connection
 * goes back to the pool holding more than the bound, the least recently executed ones are
 * deallocated (one round trip, before the connection serves anyone else) and forgotten by pg, so
 * their next use prepares them again. Between two releases a connection may hold the bound plus
 * the statements of one checkout.
 */
import type { PoolClient } from 'pg';
import { quoteIdent } from './sql/quote.js';

/** Statements kept per connection by default; the busiest shapes stay prepared. */
export const DEFAULT_PREPARED_STATEMENTS_PER_CONNECTION = 200;

/** What this module reads and wraps of pg's connection (not in pg's published types). */
interface PgConnectionInternals {
  /** Statements prepared on this connection, name → text (pg's own bookkeeping). */
  parsedStatements: Record<string, string>;
  bind(msg: { statement?: string }): void;
}

/** Statement names of one connection by last execution, oldest first (a Map keeps insertion order). */
class StatementRecency {
  readonly lastUsed = new Map<string, true>();

  constructor(readonly bound: number) {}

  touch(name: string): void {
    this.lastUsed.delete(name);
    this.lastUsed.set(name, true);
  }
}

const RECENCY = new WeakMap<PoolClient, StatementRecency>();
/** The same records by pg connection, for writers that serialise their own Binds (pipeline.ts). */
const RECENCY_BY_CONNECTION = new WeakMap<object, StatementRecency>();

const internals = (client: PoolClient): PgConnectionInternals => (client as unknown as { connection: PgConnectionInternals }).connection;

/** Starts tracking a new connection (the pool's `connect` event): every Bind records its statement. */
export function trackPreparedStatements(client: PoolClient, bound: number = DEFAULT_PREPARED_STATEMENTS_PER_CONNECTION): void {
  const recency = new StatementRecency(bound);
  RECENCY.set(client, recency);
  const connection = internals(client);
  RECENCY_BY_CONNECTION.set(connection, recency);
  const bind = connection.bind.bind(connection);
  connection.bind = (msg) => {
    if (msg.statement) recency.touch(msg.statement);
    bind(msg);
  };
}

/** Records an execution of `name` on `connection` by a Bind that did not go through pg's `bind`. */
export function touchPreparedStatement(connection: object, name: string): void {
  RECENCY_BY_CONNECTION.get(connection)?.touch(name);
}

/**
 * Gives a connection back to its pool; a healthy one holding more prepared statements than its
 * bound first deallocates the least recently executed (see above). A broken one is discarded
 * with all of its statements.
 */
export function releaseClient(client: PoolClient, broken?: Error): void {
  const over = broken === undefined ? statementsOverBound(client) : [];
  if (over.length === 0) {
    client.release(broken);
    return;
  }
  deallocate(client, over).then(
    () => client.release(),
    (e: unknown) => client.release(e instanceof Error ? e : new Error(String(e))),
  );
}

/** The statements to deallocate so that at most the bound stay prepared: the least recently executed. */
function statementsOverBound(client: PoolClient): string[] {
  const recency = RECENCY.get(client);
  if (!recency) return [];
  const bound = recency.bound;
  // Every prepared statement was executed at least once, so this is the common, O(1) exit.
  if (recency.lastUsed.size <= bound) return [];
  const parsed = internals(client).parsedStatements;
  // Names executed but not prepared (their Parse failed) have nothing to deallocate: forgotten
  // here, so the recency list itself stays bounded. Nothing is in flight on a released client.
  for (const name of recency.lastUsed.keys()) if (parsed[name] === undefined) recency.lastUsed.delete(name);
  const count = Object.keys(parsed).length;
  if (count <= bound) return [];
  const evict: string[] = [];
  for (const name of recency.lastUsed.keys()) {
    if (count - evict.length <= bound) break;
    evict.push(name);
  }
  return evict;
}

/**
 * Deallocates `names` on the (idle, checked-out) connection, then makes pg forget them so it
 * prepares them again when they come back. One simple-protocol message for all of them.
 */
async function deallocate(client: PoolClient, names: readonly string[]): Promise<void> {
  await client.query(names.map((n) => `DEALLOCATE ${quoteIdent(n)}`).join('; '));
  const parsed = internals(client).parsedStatements;
  const recency = RECENCY.get(client);
  for (const n of names) {
    delete parsed[n];
    recency?.lastUsed.delete(n);
  }
}
