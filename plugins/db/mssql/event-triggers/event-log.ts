/**
 * The event log of one `sqlb_` source (core/db/event-triggers.ts) over its mssql driver: the
 * svc_catalog tables, the capture triggers, claiming with UPDATE TOP (n) ... WITH (READPAST,
 * UPDLOCK, ROWLOCK) OUTPUT, outcomes written a batch at a time, manual events, redelivery, archiving
 * and cleanup. Catalog and capture changes run in one transaction under an application lock
 * (sp_getapplock), so engines sharing a database do not interleave their DDL.
 */
import {
  EngineError,
  TRIGGER_OPERATIONS,
  type CaptureSpec,
  type ClaimedEvent,
  type EventLog,
  type EventOutcome,
  type LogCleanupRequest,
  type LogCleanupResult,
  type QualifiedTable,
  type RedeliverOutcome,
  type StoredEventPayload,
} from '../../../../core/sdk/index.js';
import { isDuplicateKey, mssqlEngineError } from '../errors.js';
import type { MssqlDriver, Queryable, Row } from '../pool.js';
import {
  ARCHIVE_SQL,
  CATALOG_LOCK_SQL,
  CATALOG_STATEMENTS,
  CLAIM_CLEANUP_SQL,
  CLAIM_SQL,
  CLEANUP_BATCH_SQL,
  EXISTING_CAPTURES_SQL,
  FINISH_CLEANUP_SQL,
  INSERT_MANUAL_SQL,
  RECORD_INVOCATIONS_SQL,
  RECORD_STATES_SQL,
  REDELIVER_CHECK_SQL,
  REDELIVER_SQL,
  RELEASE_SQL,
} from './catalog-sql.js';
import { captureHash, captureName, checkCapturable, createCaptureSql, dropCaptureSql, hashInDefinition } from './capture-sql.js';

/** The primary key columns of a table, from the source's last introspection (null: none or unknown). */
export type PrimaryKeyOf = (table: QualifiedTable) => string[] | null;

interface ExistingCapture {
  schema: string;
  table: string;
  hash: string | null;
}

const bit = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

export class MssqlEventLog implements EventLog {
  private prepared: Promise<void> | undefined;

  constructor(
    private readonly driver: MssqlDriver,
    private readonly primaryKeyOf: PrimaryKeyOf,
  ) {}

  prepare(): Promise<void> {
    this.prepared ??= this.run('prepare', () =>
      this.driver.transaction(async (tx) => {
        await tx.rows(CATALOG_LOCK_SQL);
        for (const sql of CATALOG_STATEMENTS) await tx.rows(sql);
      }),
    ).catch((e: unknown) => {
      this.prepared = undefined;
      throw e;
    });
    return this.prepared;
  }

  async syncCaptures(wanted: readonly CaptureSpec[], dropped: readonly string[], force: boolean): Promise<void> {
    // Refused before anything is written: the metadata change fails and the database is as it was.
    const keys = new Map(wanted.map((spec) => [spec.name, this.primaryKeyOf(spec.table)]));
    for (const spec of wanted) checkCapturable(spec, keys.get(spec.name)!);
    await this.prepare();
    await this.run('sync', () =>
      this.driver.transaction(async (tx) => {
        await tx.rows(CATALOG_LOCK_SQL);
        const existing = await this.existingCaptures(tx);
        const statements: string[] = [];
        const keep = new Set<string>();
        for (const spec of wanted) {
          const key = keys.get(spec.name)!;
          for (const op of TRIGGER_OPERATIONS) {
            const name = captureName(spec.name, op);
            const have = existing.get(name);
            if (!spec.operations[op]) {
              if (have) statements.push(dropCaptureSql(have.schema, spec.name, op));
              continue;
            }
            keep.add(name);
            // On another table (re-tracked elsewhere under the same trigger name): drop it there first.
            if (have && (have.schema !== spec.table.schema || have.table !== spec.table.name)) statements.push(dropCaptureSql(have.schema, spec.name, op));
            const current = have !== undefined && have.schema === spec.table.schema && have.table === spec.table.name && have.hash === captureHash(spec, op, key);
            if (force || !current) statements.push(createCaptureSql(spec, op, key));
          }
        }
        for (const trigger of dropped) {
          for (const op of TRIGGER_OPERATIONS) {
            const have = existing.get(captureName(trigger, op));
            if (have && !keep.has(captureName(trigger, op))) statements.push(dropCaptureSql(have.schema, trigger, op));
          }
        }
        for (const sql of statements) await tx.rows(sql);
      }),
    );
  }

  private async existingCaptures(tx: Queryable): Promise<Map<string, ExistingCapture>> {
    const rows = await tx.rows(EXISTING_CAPTURES_SQL);
    return new Map(rows.map((r) => [String(r['name']), { schema: String(r['schema']), table: String(r['table']), hash: hashInDefinition(r['definition'] as string | null) }]));
  }

  async claim(triggerNames: readonly string[], limit: number, lockTimeoutSeconds: number): Promise<ClaimedEvent[]> {
    if (triggerNames.length === 0 || limit <= 0) return [];
    await this.prepare();
    const rows = await this.run(CLAIM_SQL, () => this.driver.rows(CLAIM_SQL, [limit, Math.round(lockTimeoutSeconds), JSON.stringify(triggerNames)]));
    return rows.map((r) => ({
      id: String(r['id']),
      triggerName: String(r['trigger_name']),
      table: { schema: String(r['schema_name']), name: String(r['table_name']) },
      payload: JSON.parse(String(r['payload'])) as StoredEventPayload,
      tries: Number(r['tries']),
      createdAt: String(r['created_at']),
    }));
  }

  async record(outcomes: readonly EventOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const invocations = outcomes.map((o) => ({ t: o.triggerName, e: o.eventId, s: o.status, q: JSON.stringify(o.request), r: JSON.stringify(o.response) }));
    const states = outcomes.map((o) => ({ e: o.eventId, d: o.next.state === 'delivered', x: o.next.state === 'error', w: o.next.state === 'retry' ? o.next.delaySeconds : null }));
    await this.run(RECORD_STATES_SQL, () =>
      this.driver.transaction(async (tx) => {
        await tx.rows(RECORD_INVOCATIONS_SQL, [JSON.stringify(invocations)]);
        await tx.rows(RECORD_STATES_SQL, [JSON.stringify(states)]);
      }),
    );
  }

  async release(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length > 0) await this.run(RELEASE_SQL, () => this.driver.rows(RELEASE_SQL, [JSON.stringify(eventIds)]));
  }

  async insertManual(table: QualifiedTable, triggerName: string, row: unknown, sessionJson: string): Promise<string> {
    await this.prepare();
    const payload: StoredEventPayload = { op: 'MANUAL', data: { old: null, new: row }, session_variables: JSON.parse(sessionJson) as Record<string, string>, trace_context: null };
    const rows = await this.run(INSERT_MANUAL_SQL, () => this.driver.rows(INSERT_MANUAL_SQL, [table.schema, table.name, triggerName, JSON.stringify(payload)]));
    return String(rows[0]!['id']);
  }

  async redeliver(eventId: string): Promise<RedeliverOutcome> {
    await this.prepare();
    return this.run(REDELIVER_SQL, () =>
      this.driver.transaction(async (tx) => {
        const found = await tx.rows(REDELIVER_CHECK_SQL, [eventId]);
        if (found.length === 0) return 'not-found';
        if (bit(found[0]!['busy'])) return 'locked';
        await tx.rows(REDELIVER_SQL, [eventId]);
        return 'ok';
      }),
    );
  }

  async archive(triggerName: string): Promise<void> {
    await this.prepare();
    await this.run(ARCHIVE_SQL, () => this.driver.rows(ARCHIVE_SQL, [triggerName]));
  }

  /** Finished events older than the cut-off, a batch per round trip; a batch past `timeoutSeconds` is cancelled on the server. */
  async cleanup(req: LogCleanupRequest): Promise<LogCleanupResult> {
    await this.prepare();
    const result: LogCleanupResult = { deleted_event_logs: 0, deleted_event_invocation_logs: 0 };
    for (;;) {
      let row: Row | undefined;
      try {
        row = await this.driver.transaction(async (tx) => (await tx.rows(CLEANUP_BATCH_SQL, [req.triggerName, req.olderThanHours, req.batchSize, req.cleanInvocationLogs], Date.now() + req.timeoutSeconds * 1000))[0]);
      } catch (e) {
        const err = mssqlEngineError(e, CLEANUP_BATCH_SQL);
        if (err.code === 'time-limit-exceeded') {
          throw new EngineError('timeout', `event trigger log cleanup of "${req.triggerName}" stopped: a batch took longer than ${req.timeoutSeconds} seconds`, { path: '$.args' });
        }
        throw err;
      }
      const events = Number(row?.['events'] ?? 0);
      result.deleted_event_logs += events;
      result.deleted_event_invocation_logs += Number(row?.['invocations'] ?? 0);
      if (events < req.batchSize) return result;
    }
  }

  async claimCleanupRun(triggerName: string, scheduledAt: Date): Promise<boolean> {
    await this.prepare();
    try {
      const rows = await this.driver.rows(CLAIM_CLEANUP_SQL, [triggerName, scheduledAt.toISOString()]);
      return Number(rows[0]?.['inserted'] ?? 0) === 1;
    } catch (e) {
      // Two engines inserting at once: the unique key lets one in, the other has lost the race.
      if (isDuplicateKey(e)) return false;
      throw mssqlEngineError(e, CLAIM_CLEANUP_SQL);
    }
  }

  async finishCleanupRun(triggerName: string, scheduledAt: Date, result: LogCleanupResult | null): Promise<void> {
    await this.run(FINISH_CLEANUP_SQL, () =>
      this.driver.rows(FINISH_CLEANUP_SQL, [
        triggerName,
        scheduledAt.toISOString(),
        result ? 'completed' : 'dead',
        result?.deleted_event_logs ?? null,
        result?.deleted_event_invocation_logs ?? null,
      ]),
    );
  }

  /** Driver errors as the engine's codes. */
  private async run<T>(statement: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw mssqlEngineError(e, statement);
    }
  }
}
