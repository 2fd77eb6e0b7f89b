/**
 * Where scheduled events live: the interface the operations and the runner use, so that neither
 * knows the database dialect (the PostgreSQL implementation, kept beside the metadata, is
 * pg-store.ts). Events move scheduled → locked → delivered | error | dead; a retry puts an event
 * back to scheduled with `next_retry_at`. Claims are exclusive across engines.
 */
import type { InvocationRequestLog, InvocationResponseLog, Json } from '../../../core/sdk/index.js';
import type { OneOffEventConf, ScheduledWebhookConf } from './definition.js';

export type ScheduledEventKind = 'cron' | 'one_off';
export type ScheduledEventStatus = 'scheduled' | 'locked' | 'delivered' | 'error' | 'dead';
export const SCHEDULED_EVENT_STATUSES: readonly ScheduledEventStatus[] = ['scheduled', 'locked', 'delivered', 'error', 'dead'];

export interface ClaimedScheduledEvent {
  kind: ScheduledEventKind;
  id: string;
  /** Cron events only. */
  triggerName?: string;
  scheduledTime: Date;
  createdAt: Date;
  tries: number;
  /** When this attempt was due: the retry time, or the scheduled time for a first try. */
  dueAt: Date;
  /** One-off events carry their own configuration. */
  conf?: ScheduledWebhookConf;
}

export type ScheduledOutcome =
  | { state: 'delivered' | 'error'; status: number | null; request: InvocationRequestLog; response: InvocationResponseLog }
  | { state: 'retry'; delaySeconds: number; status: number | null; request: InvocationRequestLog; response: InvocationResponseLog }
  /** Past its tolerance: never attempted, no invocation log. */
  | { state: 'dead' };

export interface Page {
  limit?: number;
  offset?: number;
}

export interface EventQuery extends Page {
  kind: ScheduledEventKind;
  triggerName?: string;
  statuses?: ScheduledEventStatus[];
  countRows: boolean;
}

export interface InvocationQuery extends Page {
  kind: ScheduledEventKind;
  eventId?: string;
  triggerName?: string;
  countRows: boolean;
}

/** Cron event changes made while holding the triggers' locks (see `withCronTriggers`). */
export interface CronEventsTx {
  /** How many cron events are still scheduled per trigger, and the latest scheduled time. */
  backlog(triggerNames: readonly string[]): Promise<Map<string, { count: number; latest: Date | null }>>;
  /** Inserts cron events; times already there are skipped. */
  add(triggerName: string, times: readonly Date[]): Promise<void>;
  /** Deletes the triggers' events that are still scheduled. */
  dropPending(triggerNames: readonly string[]): Promise<void>;
}

export interface ScheduledEventStore {
  /** Creates the tables once (idempotent, safe with several engines starting at once). */
  init(): Promise<void>;
  /**
   * Runs `fn` in one transaction holding a lock per named trigger, so that a metadata change
   * replacing a trigger's occurrences and a runner topping them up (in this or another engine)
   * never interleave: the runner sees the old occurrences or the new ones, never none.
   */
  withCronTriggers<T>(triggerNames: readonly string[], fn: (tx: CronEventsTx) => Promise<T>): Promise<T>;
  addOneOffEvent(conf: OneOffEventConf): Promise<string>;
  /** Due events (and claims older than the lock timeout), locked for this engine. */
  claim(opts: { now: Date; limit: number; lockTimeoutSeconds: number; cronTriggers: readonly string[] }): Promise<ClaimedScheduledEvent[]>;
  record(kind: ScheduledEventKind, id: string, outcome: ScheduledOutcome, now: Date): Promise<void>;
  /** Back to scheduled (shutdown, or a trigger that went away since the claim). */
  release(kind: ScheduledEventKind, ids: readonly string[]): Promise<void>;
  listEvents(q: EventQuery): Promise<{ events: Json[]; count?: number }>;
  listInvocations(q: InvocationQuery): Promise<{ invocations: Json[]; count?: number }>;
  /** False when no such event exists. */
  deleteEvent(kind: ScheduledEventKind, id: string): Promise<boolean>;
  close(): Promise<void>;
}
