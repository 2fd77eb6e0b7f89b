/**
 * The read hot path's statement: one statement whose answer is the first column of its first row,
 * as PostgreSQL rendered it (the JSON text the engine splices into the response). A node-postgres
 * submittable, like the one-trip pipeline, because pg's own query object does work this statement
 * never needs, on every execution: it copies its configuration with Object.defineProperties,
 * builds a result object with per-column parsers, and sends a Describe so that PostgreSQL answers
 * with a row description first. Here: Parse (once per connection for a named statement), Bind,
 * Execute, Sync in one write; the first DataRow's first field is the answer.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { stallTimeoutOf, withStallDeadline } from './stall-guard.js';

/** pg's own conversion of JS values to parameter text (arrays, dates, buffers, objects). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };

/** What this query calls on pg's connection (not in pg's published types). */
interface PgConnection {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(msg: { text: string; name: string; types: unknown[] }): void;
  bind(msg: { portal: string; statement: string; values: readonly unknown[]; valueMapper: (v: unknown) => unknown }): void;
  execute(msg: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

class JsonTextQuery {
  /** Read by pg's client: a ParseComplete for a named statement records it as prepared. */
  name: string;
  readonly done: Promise<string | null>;
  private answer: string | null = null;
  private answered = false;
  private failed = false;
  private resolve!: (text: string | null) => void;
  private reject!: (e: unknown) => void;

  constructor(
    name: string | undefined,
    readonly text: string,
    private readonly values: readonly unknown[],
  ) {
    this.name = name ?? '';
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: PgConnection): Error | null {
    let statement = this.name;
    if (statement !== '') {
      const known = connection.parsedStatements[statement] ?? connection.submittedNamedStatements[statement];
      // A name already used for another text (never expected: names are hashes of the text).
      if (known !== undefined && known !== this.text) statement = this.name = '';
    }
    const parse = statement === '' || (connection.parsedStatements[statement] === undefined && connection.submittedNamedStatements[statement] === undefined);
    connection.stream.cork?.();
    try {
      if (parse) {
        connection.parse({ text: this.text, name: statement, types: [] });
        if (statement !== '') connection.submittedNamedStatements[statement] = this.text;
      }
      connection.bind({ portal: '', statement, values: this.values, valueMapper: prepareValue });
      connection.execute({ portal: '', rows: 0 });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(): void {}

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.answered) return;
    this.answered = true;
    this.answer = msg.fields[0] ?? null;
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: PgConnection): void {
    connection.sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  handleError(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.resolve(this.answer);
  }
}

/**
 * Runs `text` on `client` (prepared as `name` when given) and answers the first column of the
 * first row as text, or null for no row / SQL NULL. Rejects with pg's error, or with a
 * StatementStalledError on a client guarding against stalled paths (--pg-statement-timeout).
 */
export function queryFirstText(client: PoolClient, name: string | undefined, text: string, values: readonly unknown[]): Promise<string | null> {
  const q = new JsonTextQuery(name, text, values);
  (client as unknown as { query(q: JsonTextQuery): unknown }).query(q);
  const timeoutMs = stallTimeoutOf(client);
  return timeoutMs === undefined ? q.done : withStallDeadline(client as unknown as pg.Client, q.done, timeoutMs);
}
