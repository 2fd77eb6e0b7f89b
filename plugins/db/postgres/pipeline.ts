/**
 * Several statements in one round trip: each one's Parse/Bind/Execute messages of the extended
 * protocol are serialised into one buffer, closed by a single Sync, and written with one socket
 * write. Statements
 * run in order; after an error the server skips every message up to the Sync, so nothing after a
 * failing statement runs. Used for a mutation's transaction: BEGIN, the session setting, the
 * statements and COMMIT cost one round trip instead of one each (node-postgres would wait for
 * each statement's ReadyForQuery before sending the next).
 *
 * This is a node-postgres "submittable" (an object with `submit(connection)` and the `handle*`
 * callbacks the client calls for the active query), the same interface pg-cursor uses.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { touchPreparedStatement } from './prepared-statements.js';
import { StatementStalledError, stallTimeoutOf, withStallDeadline } from './stall-guard.js';

const require = createRequire(import.meta.url);
/** pg's own conversion of JS values to parameter text (arrays, dates, buffers, objects). */
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };
/** The message encoder pg's connection uses (pg's own dependency, so always pg's version). */
const { serialize } = createRequire(require.resolve('pg'))('pg-protocol') as {
  serialize: {
    parse(msg: { text: string; name: string; types: unknown[] }): Buffer;
    bind(msg: { portal: string; statement: string; values: unknown[] }): Buffer;
    execute(msg: { portal: string; rows: number }): Buffer;
    sync(): Buffer;
  };
};
const SYNC = serialize.sync();

export interface PipelineStep {
  text: string;
  values?: readonly unknown[];
  /**
   * Prepare the statement under this name (once per connection, then only Bind/Execute); the
   * same name must always carry the same text. Unnamed steps are parsed every time.
   */
  name?: string;
}

/** Rows of every step, every column as PostgreSQL rendered it (null for SQL NULL). */
export type PipelineRows = Array<Array<Array<string | null>>>;

/** The statement at `index` failed (`cause` is the driver's error); nothing after it ran. */
export class PipelineStepError extends Error {
  constructor(
    readonly index: number,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What the pg client calls on its active query (not in pg's published types). */
interface PgConnection {
  stream: { writable: boolean; write(chunk: Buffer): boolean };
  /** Statements prepared on this connection, name → text (shared with pg's own bookkeeping). */
  parsedStatements: Record<string, string>;
}

class PipelineQuery {
  private readonly rows: PipelineRows;
  private step = 0;
  private failed = false;
  /** Parse messages sent, in order; a ParseComplete answers each in turn. */
  private readonly parses: Array<{ name: string; text: string }> = [];
  private parsed = 0;
  private connection: PgConnection | undefined;
  private readonly onParseComplete = (): void => {
    // A named statement exists once its ParseComplete arrives, whatever happens after (a
    // prepared statement outlives the transaction's rollback).
    const p = this.parses[this.parsed++];
    if (p !== undefined && p.name !== '' && this.connection) this.connection.parsedStatements[p.name] = p.text;
  };
  readonly done: Promise<PipelineRows>;
  private resolve!: (rows: PipelineRows) => void;
  private reject!: (e: unknown) => void;

  constructor(private readonly steps: readonly PipelineStep[]) {
    this.rows = steps.map(() => []);
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: PgConnection): Error | null {
    // Values are converted before anything is written, so a value pg cannot render fails the
    // whole pipeline cleanly instead of leaving half a message on the wire.
    const values: unknown[][] = [];
    try {
      for (const s of this.steps) {
        values.push((s.values ?? []).map((v) => prepareValue(v)));
        this.step++;
      }
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
    this.step = 0;
    this.connection = connection;
    const messages: Buffer[] = [];
    for (let i = 0; i < this.steps.length; i++) {
      const { text, name } = this.steps[i]!;
      // Known to the connection, or parsed by an earlier step of this pipeline.
      const known = name === undefined ? undefined : (connection.parsedStatements[name] ?? this.parses.find((p) => p.name === name)?.text);
      // A name already used for another text (never expected) falls back to an unnamed statement.
      const statement = name !== undefined && (known === undefined || known === text) ? name : '';
      if (statement === '' || known === undefined) {
        messages.push(serialize.parse({ text, name: statement, types: [] }));
        this.parses.push({ name: statement, text });
      }
      // Binds serialised here bypass pg's `bind`, where the per-connection bound counts uses.
      if (statement !== '') touchPreparedStatement(connection, statement);
      messages.push(serialize.bind({ portal: '', statement, values: values[i]! }), serialize.execute({ portal: '', rows: 0 }));
    }
    messages.push(SYNC);
    if (this.parses.length > 0) (connection as unknown as NodeJS.EventEmitter).on('parseComplete', this.onParseComplete);
    // As pg's own writes: a closed stream is reported by its 'error'/'end', which fail the query.
    if (connection.stream.writable) connection.stream.write(Buffer.concat(messages));
    return null;
  }

  handleRowDescription(): void {}

  handleDataRow(msg: { fields: Array<string | null> }): void {
    this.rows[this.step]?.push(msg.fields);
  }

  handleCommandComplete(): void {
    this.step++;
  }

  handleEmptyQuery(): void {
    this.step++;
  }

  handlePortalSuspended(): void {}

  /** The first error ends the pipeline: the server skips to the Sync, and pg drops the query. */
  handleError(err: unknown): void {
    this.stopListening();
    if (this.failed) return;
    this.failed = true;
    this.reject(new PipelineStepError(this.step, err));
  }

  handleReadyForQuery(): void {
    this.stopListening();
    if (!this.failed) this.resolve(this.rows);
  }

  private stopListening(): void {
    if (this.parses.length > 0) (this.connection as unknown as NodeJS.EventEmitter | undefined)?.removeListener('parseComplete', this.onParseComplete);
  }
}

/**
 * Sends `steps` in one round trip on `client`; rejects with a PipelineStepError. On a client
 * guarding against stalled paths (--pg-statement-timeout) the pipeline gets the same guard, each
 * statement allowed the timeout (the guard wraps only promise-returning `query` calls).
 */
export function runPipeline(client: PoolClient, steps: readonly PipelineStep[]): Promise<PipelineRows> {
  const q = new PipelineQuery(steps);
  (client as unknown as { query(q: PipelineQuery): unknown }).query(q);
  const timeoutMs = stallTimeoutOf(client);
  if (timeoutMs === undefined) return q.done;
  return withStallDeadline(client as unknown as pg.Client, q.done, timeoutMs, steps.length).catch((e: unknown) =>
    Promise.reject(e instanceof StatementStalledError ? new PipelineStepError(-1, e) : e),
  );
}
