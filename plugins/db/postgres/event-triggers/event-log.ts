/**
 * The event log of one `pg_` source (core/db/event-triggers.ts): the svc_catalog tables, the
 * capture triggers, claiming with FOR UPDATE SKIP LOCKED, batched outcome writes, manual events,
 * redelivery and cleanup. Catalog and capture changes run under one advisory lock so engines
 * sharing the database do not interleave DDL.
 */
import {
  TRIGGER_OPERATIONS,
  type CaptureSpec,
  type ClaimedEvent,
  type EventLog,
  type EventOutcome,
  type LogCleanupRequest,
  type LogCleanupResult,
  type RedeliverOutcome,
  type StoredEventPayload,
  type QualifiedTable,
} from '../../../../core/sdk/index.js';
import type { PgQueryable, PgSourcePool } from '../pool.js';
import {
  ARCHIVE_SQL,
  CATALOG_SQL,
  CLAIM_SQL,
  EVENT_CATALOG_LOCK,
  INSERT_MANUAL_SQL,
  RECORD_INVOCATIONS_SQL,
  RECORD_STATES_SQL,
  RELEASE_SQL,
} from './catalog-sql.js';
import { captureComment, captureName, createCaptureSql, dropCaptureSql } from './capture-sql.js';

interface ClaimRow {
  id: string;
  schema_name: string;
  table_name: string;
  trigger_name: string;
  payload: string;
  tries: number;
  created_at: string;
}

export class PgEventLog implements EventLog {
  private prepared: Promise<void> | undefined;

  constructor(private readonly pool: PgSourcePool) {}

  prepare(): Promise<void> {
    this.prepared ??= this.locked(async (tx) => {
      await tx.queryTextResults(CATALOG_SQL);
    }).catch((e: unknown) => {
      this.prepared = undefined;
      throw e;
    });
    return this.prepared;
  }

  async syncCaptures(wanted: readonly CaptureSpec[], dropped: readonly string[], force: boolean): Promise<void> {
    await this.prepare();
    await this.locked(async (tx) => {
      const existing = await this.existingCaptures(tx);
      const statements: string[] = [];
      const keep = new Set<string>();
      for (const spec of wanted) {
        for (const op of TRIGGER_OPERATIONS) {
          const name = captureName(spec.name, op);
          if (!spec.operations[op]) {
            if (existing.has(name)) statements.push(dropCaptureSql(spec.name, op));
            continue;
          }
          keep.add(name);
          const have = existing.get(name);
          const current =
            have !== undefined &&
            have.comment === captureComment(spec, op) &&
            have.table !== null &&
            have.table.schema === spec.table.schema &&
            have.table.name === spec.table.name;
          if (force || !current) statements.push(...createCaptureSql(spec, op));
        }
      }
      for (const name of dropped) {
        for (const op of TRIGGER_OPERATIONS) {
          if (!keep.has(captureName(name, op)) && existing.has(captureName(name, op))) statements.push(dropCaptureSql(name, op));
        }
      }
      for (const sql of statements) await tx.query(sql);
    });
  }

  /** Capture functions in svc_catalog, their comment and the table their trigger is on. */
  private async existingCaptures(tx: PgQueryable): Promise<Map<string, { comment: string | null; table: QualifiedTable | null }>> {
    const res = await tx.query<{ name: string; comment: string | null; schema: string | null; table: string | null }>(
      `SELECT p.proname AS name, obj_description(p.oid, 'pg_proc') AS comment, tn.nspname AS schema, tc.relname AS table
       FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace
       LEFT JOIN pg_trigger t ON t.tgfoid = p.oid AND t.tgname = p.proname
       LEFT JOIN pg_class tc ON tc.oid = t.tgrelid
       LEFT JOIN pg_namespace tn ON tn.oid = tc.relnamespace
       WHERE n.nspname = 'svc_catalog' AND p.proname LIKE 'notify\\_svc\\_%'`,
    );
    return new Map(res.rows.map((r) => [r.name, { comment: r.comment, table: r.schema && r.table ? { schema: r.schema, name: r.table } : null }]));
  }

  async claim(triggerNames: readonly string[], limit: number, lockTimeoutSeconds: number): Promise<ClaimedEvent[]> {
    if (triggerNames.length === 0 || limit <= 0) return [];
    const res = await this.bookkeeping((tx) => tx.query<ClaimRow>(CLAIM_SQL, [limit, triggerNames, lockTimeoutSeconds]));
    return res.rows.map((r) => ({
      id: r.id,
      triggerName: r.trigger_name,
      table: { schema: r.schema_name, name: r.table_name },
      payload: JSON.parse(r.payload) as StoredEventPayload,
      tries: r.tries,
      createdAt: r.created_at,
    }));
  }

  async record(outcomes: readonly EventOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.bookkeeping(async (tx) => {
      await tx.query(RECORD_INVOCATIONS_SQL, [
        outcomes.map((o) => o.triggerName),
        outcomes.map((o) => o.eventId),
        outcomes.map((o) => o.status),
        outcomes.map((o) => JSON.stringify(o.request)),
        outcomes.map((o) => JSON.stringify(o.response)),
      ]);
      await tx.query(RECORD_STATES_SQL, [
        outcomes.map((o) => o.eventId),
        outcomes.map((o) => o.next.state === 'delivered'),
        outcomes.map((o) => o.next.state === 'error'),
        outcomes.map((o) => (o.next.state === 'retry' ? o.next.delaySeconds : null)),
      ]);
    });
  }

  async release(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length > 0) await this.pool.query(RELEASE_SQL, [eventIds]);
  }

  async insertManual(table: QualifiedTable, triggerName: string, row: unknown, sessionJson: string): Promise<string> {
    await this.prepare();
    return this.pool.withTransaction('read-committed', false, async (tx) => {
      await tx.query(`SELECT set_config('svc.user', $1, true)`, [sessionJson]);
      const res = await tx.query<{ id: string }>(INSERT_MANUAL_SQL, [table.schema, table.name, triggerName, JSON.stringify({ old: null, new: row })]);
      return res.rows[0]!.id;
    });
  }

  async redeliver(eventId: string): Promise<RedeliverOutcome> {
    await this.prepare();
    return this.pool.withTransaction('read-committed', false, async (tx) => {
      const found = await tx.query<{ busy: boolean }>(
        `SELECT (locked IS NOT NULL AND NOT delivered AND NOT error) AS busy FROM svc_catalog.event_log WHERE id = $1 FOR UPDATE`,
        [eventId],
      );
      if (found.rows.length === 0) return 'not-found';
      if (found.rows[0]!.busy) return 'locked';
      await tx.query(
        `UPDATE svc_catalog.event_log SET delivered = false, error = false, tries = 0, locked = NULL, next_retry_at = NULL, archived = false WHERE id = $1`,
        [eventId],
      );
      return 'ok';
    });
  }

  async archive(triggerName: string): Promise<void> {
    await this.prepare();
    await this.pool.query(ARCHIVE_SQL, [triggerName]);
  }

  /**
   * Deletes finished events (delivered or error, not locked) older than the cut-off, a batch per
   * statement until none is left; a batch over `timeoutSeconds` stops the run with the error.
   */
  async cleanup(req: LogCleanupRequest): Promise<LogCleanupResult> {
    await this.prepare();
    const result: LogCleanupResult = { deleted_event_logs: 0, deleted_event_invocation_logs: 0 };
    for (;;) {
      const batch = await this.pool.withTransaction('read-committed', false, async (tx) => {
        await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [String(req.timeoutSeconds * 1000)]);
        const ids = await tx.query<{ id: string }>(
          `DELETE FROM svc_catalog.event_log WHERE id IN (
             SELECT id FROM svc_catalog.event_log
             WHERE trigger_name = $1 AND (delivered OR error) AND locked IS NULL
               AND created_at < (now() AT TIME ZONE 'utc') - make_interval(hours => $2)
             LIMIT $3)
           RETURNING id`,
          [req.triggerName, req.olderThanHours, req.batchSize],
        );
        const eventIds = ids.rows.map((r) => r.id);
        let invocations = 0;
        if (req.cleanInvocationLogs && eventIds.length > 0) {
          const del = await tx.query(`DELETE FROM svc_catalog.event_invocation_logs WHERE event_id = ANY($1::text[])`, [eventIds]);
          invocations = del.rowCount ?? 0;
        }
        return { events: eventIds.length, invocations };
      });
      result.deleted_event_logs += batch.events;
      result.deleted_event_invocation_logs += batch.invocations;
      if (batch.events < req.batchSize) return result;
    }
  }

  async claimCleanupRun(triggerName: string, scheduledAt: Date): Promise<boolean> {
    await this.prepare();
    const res = await this.pool.query(
      `INSERT INTO svc_catalog.event_log_cleanups (trigger_name, scheduled_at, status) VALUES ($1, $2, 'scheduled')
       ON CONFLICT (trigger_name, scheduled_at) DO NOTHING`,
      [triggerName, scheduledAt.toISOString()],
    );
    return (res.rowCount ?? 0) === 1;
  }

  async finishCleanupRun(triggerName: string, scheduledAt: Date, result: LogCleanupResult | null): Promise<void> {
    await this.pool.query(
      `UPDATE svc_catalog.event_log_cleanups SET status = $3, deleted_event_logs = $4, deleted_event_invocation_logs = $5
       WHERE trigger_name = $1 AND scheduled_at = $2`,
      [triggerName, scheduledAt.toISOString(), result ? 'completed' : 'dead', result?.deleted_event_logs ?? null, result?.deleted_event_invocation_logs ?? null],
    );
  }

  /**
   * Claims and outcomes commit without waiting for the WAL flush: if the database itself crashes
   * right after, a claim is forgotten (the event is pending again) or a delivery is not recorded
   * (it is delivered again). Both keep at-least-once; the events themselves were written durably
   * by the user's own transaction. It saves a disk flush per batch.
   */
  private bookkeeping<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
    return this.pool.withTransaction('read-committed', false, async (tx) => {
      await tx.query('SET LOCAL synchronous_commit TO OFF');
      return fn(tx);
    });
  }

  private locked<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
    return this.pool.withTransaction('read-committed', false, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [EVENT_CATALOG_LOCK]);
      return fn(tx);
    });
  }
}
