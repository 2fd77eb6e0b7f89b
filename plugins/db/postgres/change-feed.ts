/**
 * Change tracking for live queries: a statement-level trigger on each watched table sends
 * `pg_notify` on commit, and one dedicated connection LISTENs. NOTIFY is transactional (sent at
 * commit, never for a rolled-back write) and costs one message per writing statement, not per row.
 *
 * A table is watched only when it is an ordinary table without inheritance children (a write
 * to a view's base table or to a partition would not fire a trigger on what the query names),
 * and only when the engine may create the trigger; otherwise `watch` says no and the caller
 * keeps polling. The embedded database (PGlite) serves every connection from one session and
 * does not deliver notifications between them, so it gets no feed at all.
 */
import pg from 'pg';
import { type ChangeFeed, type ChangeFeedListener, type TableRef } from '../../../core/sdk/index.js';
import type { ResolvedPgConnection } from './connection-info.js';
import { poolConfigFor, type PgSourcePool } from './pool.js';
import { quoteTable } from './sql/quote.js';

export const CHANGE_CHANNEL = 'svc_live_query_changes';
export const CHANGE_TRIGGER = 'svc_live_query_change';
const NOTIFY_FUNCTION = 'svc_catalog.svc_live_query_notify';
const RECONNECT_MS = [250, 1000, 5000, 15000];

const INSTALL_FUNCTION = `CREATE OR REPLACE FUNCTION ${NOTIFY_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANGE_CHANNEL}', json_build_object('s', TG_TABLE_SCHEMA, 't', TG_TABLE_NAME)::text);
  RETURN NULL;
END
$$`;

/**
 * Drops the change trigger from `tables` (untracked, or their source removed), or from every
 * table that has it ('all': tracking turned off); the notify function goes with the last trigger.
 * Only triggers calling our function count, and the install lock is held, so no engine installs
 * one meanwhile.
 */
export async function dropChangeTracking(pool: PgSourcePool, tables: readonly TableRef[] | 'all'): Promise<number> {
  return pool.withTransaction('read-committed', false, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('${CHANGE_TRIGGER}'))`);
    const { rows } = await tx.query<{ schema: string; name: string }>(
      `SELECT n.nspname AS schema, c.relname AS name
         FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE tg.tgname = $1 AND tg.tgfoid = to_regprocedure($2)`,
      [CHANGE_TRIGGER, `${NOTIFY_FUNCTION}()`],
    );
    const wanted = tables === 'all' ? rows : rows.filter((r) => tables.some((t) => t.schema === r.schema && t.name === r.name));
    for (const r of wanted) await tx.query(`DROP TRIGGER IF EXISTS ${CHANGE_TRIGGER} ON ${quoteTable(r)}`);
    if (wanted.length === rows.length) await tx.query(`DROP FUNCTION IF EXISTS ${NOTIFY_FUNCTION}()`);
    return wanted.length;
  });
}

/** Whether this source can deliver notifications between connections. */
export async function supportsChangeFeed(pool: PgSourcePool): Promise<boolean> {
  const { rows } = await pool.query<{ v: string }>('SELECT version() AS v');
  return !/emscripten|pglite/i.test(rows[0]?.v ?? '');
}

export class PgChangeFeed implements ChangeFeed {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Per table key, while its trigger is being checked or installed: whether it is watched. */
  private readonly tables = new Map<string, Promise<boolean>>();

  constructor(
    private readonly resolved: ResolvedPgConnection,
    private readonly pool: PgSourcePool,
    private readonly listener: ChangeFeedListener,
  ) {}

  async watch(tables: readonly TableRef[]): Promise<boolean> {
    if (this.closed) return false;
    await this.listen();
    const results = await Promise.all(tables.map((t) => this.watchOne(t)));
    return results.every(Boolean);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }

  /**
   * Checked again for every new poller (a table may have been dropped and re-created, taking its
   * trigger with it); concurrent checks of one table share one.
   */
  private watchOne(t: TableRef): Promise<boolean> {
    const key = quoteTable(t);
    let p = this.tables.get(key);
    if (!p) {
      p = this.install(t)
        .catch(() => false)
        .finally(() => this.tables.delete(key));
      this.tables.set(key, p);
    }
    return p;
  }

  /** Installs the trigger once per table, under a lock so concurrent engines do not collide. */
  private install(t: TableRef): Promise<boolean> {
    const table = quoteTable(t);
    return this.pool.withTransaction('read-committed', false, async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('${CHANGE_TRIGGER}'))`);
      const kind = await tx.query<{ relkind: string; relhassubclass: boolean; has_trigger: boolean }>(
        `SELECT c.relkind::text AS relkind, c.relhassubclass,
                EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgrelid = c.oid AND tg.tgname = $2) AS has_trigger
           FROM pg_class c WHERE c.oid = to_regclass($1)`,
        [table, CHANGE_TRIGGER],
      );
      const row = kind.rows[0];
      if (!row || row.relkind !== 'r' || row.relhassubclass) return false;
      if (row.has_trigger) return true;
      const fn = await tx.query<{ f: string | null }>(`SELECT to_regprocedure('${NOTIFY_FUNCTION}()')::text AS f`);
      if (fn.rows[0]?.f == null) {
        await tx.query('CREATE SCHEMA IF NOT EXISTS svc_catalog');
        await tx.query(INSTALL_FUNCTION);
      }
      await tx.query(
        `CREATE TRIGGER ${CHANGE_TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} ` +
          `FOR EACH STATEMENT EXECUTE FUNCTION ${NOTIFY_FUNCTION}()`,
      );
      return true;
    });
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...poolConfigFor(this.resolved), application_name: 'svc-graphql-engine-live-queries' });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGE_CHANNEL || !msg.payload) return;
      try {
        const { s, t } = JSON.parse(msg.payload) as { s: string; t: string };
        this.listener.changed({ schema: s, name: t });
      } catch {
        // Not ours (someone else NOTIFYing on the channel): ignore it.
      }
    });
    const broken = (): void => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      // Writes may go unnoticed until LISTEN is back: everything counts as changed meanwhile.
      this.listener.lost();
      this.scheduleReconnect();
    };
    client.on('error', broken);
    client.on('end', broken);
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.attempt = 0;
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)]!;
    this.reconnectTimer = setTimeout(() => {
      this.listen()
        .then(() => this.listener.restored())
        .catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }
}
