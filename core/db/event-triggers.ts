/**
 * The event-trigger capability of a database kind: capturing row changes into an event log inside
 * the source database (in the same transaction as the change), and the event log operations the
 * trigger runner and the metadata operations need. A kind that offers it sets `eventTriggers` on
 * its DatabaseKind; the `<prefix>_create_event_trigger` family is registered for exactly those
 * kinds. Everything here is neutral: statements are the kind's business.
 */
import type { QualifiedTable } from '../metadata/types.js';
import type { SourceConnection } from './contract.js';

export type TriggerOperation = 'INSERT' | 'UPDATE' | 'DELETE';

export const TRIGGER_OPERATIONS: readonly TriggerOperation[] = ['INSERT', 'UPDATE', 'DELETE'];

export type ColumnList = '*' | string[];

/** What the database must capture for one event trigger. */
export interface CaptureSpec {
  name: string;
  table: QualifiedTable;
  /** Per operation: the columns whose change fires (UPDATE only) and the columns sent. */
  operations: Partial<Record<TriggerOperation, { columns: ColumnList; payload: ColumnList }>>;
  /** Fire also for changes applied by logical replication. */
  triggerOnReplication: boolean;
  /** The table's columns with their database types, in table order (for typed payload rendering). */
  tableColumns: ReadonlyArray<{ name: string; type: string }>;
  /** Render numeric types as strings in payloads (`--stringify-numeric-types`). */
  stringifyNumeric: boolean;
}

/** The event as stored: `{op, data: {old, new}, session_variables, trace_context}`. */
export interface StoredEventPayload {
  op: TriggerOperation | 'MANUAL';
  data: { old: unknown; new: unknown };
  session_variables: Record<string, string> | null;
  trace_context: unknown;
}

export interface ClaimedEvent {
  id: string;
  triggerName: string;
  table: QualifiedTable;
  payload: StoredEventPayload;
  /** Attempts made before this one. */
  tries: number;
  /** `created_at` as the reference sends it: a UTC timestamp without zone (`2024-01-01T10:00:00.123456`). */
  createdAt: string;
}

/** One finished attempt: its invocation-log row and where the event goes next. */
export interface EventOutcome {
  eventId: string;
  triggerName: string;
  status: number | null;
  request: unknown;
  response: unknown;
  next: { state: 'delivered' } | { state: 'error' } | { state: 'retry'; delaySeconds: number };
}

export interface LogCleanupRequest {
  triggerName: string;
  olderThanHours: number;
  batchSize: number;
  timeoutSeconds: number;
  cleanInvocationLogs: boolean;
}

export interface LogCleanupResult {
  deleted_event_logs: number;
  deleted_event_invocation_logs: number;
}

export type RedeliverOutcome = 'ok' | 'not-found' | 'locked';

export interface EventLog {
  /** Creates the event log tables and functions in the source if missing; idempotent. */
  prepare(): Promise<void>;
  /**
   * Makes the database capture exactly `wanted` (re-creating definitions that changed, or all of
   * them with `force`) and stops capturing for `dropped` trigger names. One transaction.
   */
  syncCaptures(wanted: readonly CaptureSpec[], dropped: readonly string[], force: boolean): Promise<void>;
  /**
   * Locks up to `limit` deliverable events of these triggers (pending, due, not locked by a live
   * engine: a lock older than `lockTimeoutSeconds` is taken over) and returns them. Concurrent
   * claimers never get the same event.
   */
  claim(triggerNames: readonly string[], limit: number, lockTimeoutSeconds: number): Promise<ClaimedEvent[]>;
  /** Writes invocation logs and new states for finished attempts, in one transaction. */
  record(outcomes: readonly EventOutcome[]): Promise<void>;
  /** Unlocks claimed events that were not attempted (graceful shutdown): they are pending again. */
  release(eventIds: readonly string[]): Promise<void>;
  /** A MANUAL event with `data` = `{old: null, new: row}`; returns its id. */
  insertManual(table: QualifiedTable, triggerName: string, row: unknown, sessionJson: string): Promise<string>;
  redeliver(eventId: string): Promise<RedeliverOutcome>;
  /** Pending events of a deleted trigger are archived, never delivered. */
  archive(triggerName: string): Promise<void>;
  cleanup(request: LogCleanupRequest): Promise<LogCleanupResult>;
  /** Claims one scheduled cleanup run (several engines may race); false when another engine has it. */
  claimCleanupRun(triggerName: string, scheduledAt: Date): Promise<boolean>;
  finishCleanupRun(triggerName: string, scheduledAt: Date, result: LogCleanupResult | null): Promise<void>;
}

export interface EventTriggerSupport {
  /** `trigger_on_replication` when not given (false for pg_, true for sqlb_ in the reference). */
  readonly defaultTriggerOnReplication: boolean;
  eventLog(connection: SourceConnection): EventLog;
}
