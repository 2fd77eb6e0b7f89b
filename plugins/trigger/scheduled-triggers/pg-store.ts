/**
 * Scheduled events in the metadata database's `svc_catalog` (PostgreSQL), as the reference keeps
 * `hdb_cron_events` / `hdb_scheduled_events` and their invocation logs beside the metadata. All
 * the SQL of scheduled triggers is here. Claims lock rows with FOR UPDATE SKIP LOCKED and move
 * them to `locked` in the same statement, so two engines never take the same event in one try.
 * Times come from the runner's clock as parameters (tests run the clock fast).
 */
import type pg from 'pg';
import type { Json } from '../../../core/sdk/index.js';
import { CatalogTableStore, type CatalogDatabase } from '../../db/postgres/catalog-table-store.js';
import type { OneOffEventConf, ScheduledWebhookConf } from './definition.js';
import type {
  ClaimedScheduledEvent,
  CronEventsTx,
  EventQuery,
  InvocationQuery,
  ScheduledEventKind,
  ScheduledEventStore,
  ScheduledOutcome,
} from './store.js';

/** Arbitrary constants naming the locks that serialise creating the tables and each cron trigger's events. */
const CREATE_LOCK = 720_011_615;
const CRON_LOCK = 720_011_616;

function cronTx(client: pg.PoolClient): CronEventsTx {
  return {
    async backlog(triggerNames) {
      const { rows } = await client.query<{ trigger_name: string; n: string; latest: Date | null }>(
        `SELECT trigger_name, count(*) AS n, max(scheduled_time) AS latest FROM svc_catalog.svc_cron_events
         WHERE status = 'scheduled' AND trigger_name = ANY($1::text[]) GROUP BY trigger_name`,
        [triggerNames],
      );
      return new Map(rows.map((r) => [r.trigger_name, { count: Number(r.n), latest: r.latest }]));
    },
    async add(triggerName, times) {
      if (times.length === 0) return;
      await client.query(
        `INSERT INTO svc_catalog.svc_cron_events (trigger_name, scheduled_time)
         SELECT $1, t FROM unnest($2::timestamptz[]) AS t ON CONFLICT (trigger_name, scheduled_time) DO NOTHING`,
        [triggerName, times.map((t) => t.toISOString())],
      );
    },
    async dropPending(triggerNames) {
      if (triggerNames.length === 0) return;
      await client.query(`DELETE FROM svc_catalog.svc_cron_events WHERE trigger_name = ANY($1::text[]) AND status = 'scheduled'`, [triggerNames]);
    },
  };
}

const CREATE = `
CREATE TABLE IF NOT EXISTS svc_catalog.svc_cron_events (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  trigger_name text NOT NULL,
  scheduled_time timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'locked', 'delivered', 'error', 'dead')),
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_retry_at timestamptz,
  locked_at timestamptz,
  UNIQUE (trigger_name, scheduled_time)
);
CREATE INDEX IF NOT EXISTS svc_cron_events_due ON svc_catalog.svc_cron_events (status, (coalesce(next_retry_at, scheduled_time)));
CREATE TABLE IF NOT EXISTS svc_catalog.svc_cron_event_invocation_logs (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  event_id text NOT NULL REFERENCES svc_catalog.svc_cron_events (id) ON DELETE CASCADE,
  status integer,
  request json,
  response json,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS svc_cron_event_invocation_logs_event ON svc_catalog.svc_cron_event_invocation_logs (event_id);
CREATE TABLE IF NOT EXISTS svc_catalog.svc_scheduled_events (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  webhook_conf json NOT NULL,
  scheduled_time timestamptz NOT NULL,
  retry_conf json NOT NULL,
  payload json,
  header_conf json NOT NULL,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'locked', 'delivered', 'error', 'dead')),
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_retry_at timestamptz,
  locked_at timestamptz,
  comment text,
  request_transform json,
  response_transform json
);
CREATE INDEX IF NOT EXISTS svc_scheduled_events_due ON svc_catalog.svc_scheduled_events (status, (coalesce(next_retry_at, scheduled_time)));
CREATE TABLE IF NOT EXISTS svc_catalog.svc_scheduled_event_invocation_logs (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  event_id text NOT NULL REFERENCES svc_catalog.svc_scheduled_events (id) ON DELETE CASCADE,
  status integer,
  request json,
  response json,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS svc_scheduled_event_invocation_logs_event ON svc_catalog.svc_scheduled_event_invocation_logs (event_id);
`;

const TABLES: Record<ScheduledEventKind, { events: string; logs: string }> = {
  cron: { events: 'svc_catalog.svc_cron_events', logs: 'svc_catalog.svc_cron_event_invocation_logs' },
  one_off: { events: 'svc_catalog.svc_scheduled_events', logs: 'svc_catalog.svc_scheduled_event_invocation_logs' },
};

// $1 now, $2 limit, $3 lock timeout (s). Due: scheduled and its time (or retry time) has come, or
// locked by an engine that has not finished it within the lock timeout (it probably died).
const dueWhere = `((status = 'scheduled' AND coalesce(next_retry_at, scheduled_time) <= $1)
   OR (status = 'locked' AND locked_at < $1::timestamptz - make_interval(secs => $3)))`;

const CLAIM_CRON = `
WITH due AS (
  SELECT id FROM svc_catalog.svc_cron_events
  WHERE ${dueWhere} AND trigger_name = ANY($4::text[])
  ORDER BY coalesce(next_retry_at, scheduled_time) LIMIT $2 FOR UPDATE SKIP LOCKED)
UPDATE svc_catalog.svc_cron_events e SET status = 'locked', locked_at = $1 FROM due WHERE e.id = due.id
RETURNING e.id, e.trigger_name, e.scheduled_time, e.created_at, e.tries, coalesce(e.next_retry_at, e.scheduled_time) AS due_at`;

const CLAIM_ONE_OFF = `
WITH due AS (
  SELECT id FROM svc_catalog.svc_scheduled_events
  WHERE ${dueWhere}
  ORDER BY coalesce(next_retry_at, scheduled_time) LIMIT $2 FOR UPDATE SKIP LOCKED)
UPDATE svc_catalog.svc_scheduled_events e SET status = 'locked', locked_at = $1 FROM due WHERE e.id = due.id
RETURNING e.id, e.scheduled_time, e.created_at, e.tries, coalesce(e.next_retry_at, e.scheduled_time) AS due_at,
  e.webhook_conf, e.retry_conf, e.payload, e.header_conf, e.comment, e.request_transform, e.response_transform`;

// $1 id, $2 new status, $3 attempted, $4 http status, $5 request, $6 response, $7 next retry.
const recordSql = (kind: ScheduledEventKind): string => `
WITH log AS (
  INSERT INTO ${TABLES[kind].logs} (event_id, status, request, response)
  SELECT $1, $4, $5, $6 WHERE $3::boolean)
UPDATE ${TABLES[kind].events}
SET status = $2, tries = tries + CASE WHEN $3::boolean THEN 1 ELSE 0 END, next_retry_at = $7, locked_at = NULL
WHERE id = $1`;

const EVENT_COLUMNS: Record<ScheduledEventKind, string> = {
  cron: 'id, trigger_name, scheduled_time, status, tries, created_at, next_retry_at',
  one_off:
    'id, webhook_conf, scheduled_time, retry_conf, payload, header_conf, status, tries, created_at, next_retry_at, comment, request_transform, response_transform',
};

interface ClaimRow {
  id: string;
  trigger_name?: string;
  scheduled_time: Date;
  created_at: Date;
  tries: number;
  due_at: Date;
  webhook_conf?: string;
  retry_conf?: ScheduledWebhookConf['retry_conf'];
  payload?: Json;
  header_conf?: ScheduledWebhookConf['headers'];
  comment?: string | null;
  request_transform?: ScheduledWebhookConf['request_transform'] | null;
  response_transform?: ScheduledWebhookConf['response_transform'] | null;
}

function oneOffConf(r: ClaimRow): ScheduledWebhookConf {
  return {
    webhook: r.webhook_conf!,
    headers: r.header_conf ?? [],
    retry_conf: r.retry_conf!,
    ...(r.payload !== null && r.payload !== undefined ? { payload: r.payload } : {}),
    ...(r.comment !== null && r.comment !== undefined ? { comment: r.comment } : {}),
    ...(r.request_transform ? { request_transform: r.request_transform } : {}),
    ...(r.response_transform ? { response_transform: r.response_transform } : {}),
  };
}

export class PgScheduledEventStore extends CatalogTableStore implements ScheduledEventStore {
  constructor(database: CatalogDatabase) {
    super(database, { ddl: CREATE, createLock: CREATE_LOCK, applicationName: 'svc-graphql-engine-scheduled-triggers' });
  }

  async withCronTriggers<T>(triggerNames: readonly string[], fn: (tx: CronEventsTx) => Promise<T>): Promise<T> {
    await this.init();
    return this.transaction(async (client) => {
      // Sorted, so two transactions locking overlapping sets cannot deadlock.
      await client.query(`SELECT pg_advisory_xact_lock($1, hashtext(n)) FROM unnest($2::text[]) AS n ORDER BY n`, [CRON_LOCK, [...triggerNames].sort()]);
      return fn(cronTx(client));
    });
  }

  async addOneOffEvent(conf: OneOffEventConf): Promise<string> {
    const { rows } = await this.query<{ id: string }>(
      `INSERT INTO svc_catalog.svc_scheduled_events
         (webhook_conf, scheduled_time, retry_conf, payload, header_conf, comment, request_transform, response_transform)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        JSON.stringify(conf.webhook),
        conf.schedule_at.toISOString(),
        JSON.stringify(conf.retry_conf),
        conf.payload === undefined ? null : JSON.stringify(conf.payload),
        JSON.stringify(conf.headers),
        conf.comment ?? null,
        conf.request_transform ? JSON.stringify(conf.request_transform) : null,
        conf.response_transform ? JSON.stringify(conf.response_transform) : null,
      ],
    );
    return rows[0]!.id;
  }

  async claim(opts: { now: Date; limit: number; lockTimeoutSeconds: number; cronTriggers: readonly string[] }): Promise<ClaimedScheduledEvent[]> {
    const base = [opts.now.toISOString(), opts.limit, opts.lockTimeoutSeconds];
    const cron = opts.cronTriggers.length === 0 ? { rows: [] as ClaimRow[] } : await this.query<ClaimRow>(CLAIM_CRON, [...base, opts.cronTriggers]);
    const room = opts.limit - cron.rows.length;
    const oneOff = room <= 0 ? { rows: [] as ClaimRow[] } : await this.query<ClaimRow>(CLAIM_ONE_OFF, [base[0], room, base[2]]);
    const event = (kind: ScheduledEventKind, r: ClaimRow): ClaimedScheduledEvent => ({
      kind,
      id: r.id,
      ...(r.trigger_name !== undefined ? { triggerName: r.trigger_name } : {}),
      scheduledTime: r.scheduled_time,
      createdAt: r.created_at,
      tries: r.tries,
      dueAt: r.due_at,
      ...(kind === 'one_off' ? { conf: oneOffConf(r) } : {}),
    });
    return [...cron.rows.map((r) => event('cron', r)), ...oneOff.rows.map((r) => event('one_off', r))];
  }

  async record(kind: ScheduledEventKind, id: string, outcome: ScheduledOutcome, now: Date): Promise<void> {
    if (outcome.state === 'dead') {
      await this.query(recordSql(kind), [id, 'dead', false, null, null, null, null]);
      return;
    }
    const next = outcome.state === 'retry' ? new Date(now.getTime() + outcome.delaySeconds * 1000).toISOString() : null;
    await this.query(recordSql(kind), [
      id,
      outcome.state === 'retry' ? 'scheduled' : outcome.state,
      true,
      outcome.status,
      JSON.stringify(outcome.request),
      JSON.stringify(outcome.response),
      next,
    ]);
  }

  async release(kind: ScheduledEventKind, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.query(`UPDATE ${TABLES[kind].events} SET status = 'scheduled', locked_at = NULL WHERE id = ANY($1::text[]) AND status = 'locked'`, [ids]);
  }

  async listEvents(q: EventQuery): Promise<{ events: Json[]; count?: number }> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (q.triggerName !== undefined) {
      values.push(q.triggerName);
      where.push(`trigger_name = $${values.length}`);
    }
    if (q.statuses && q.statuses.length > 0) {
      values.push(q.statuses);
      where.push(`status = ANY($${values.length}::text[])`);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    return this.page(`SELECT ${EVENT_COLUMNS[q.kind]} FROM ${TABLES[q.kind].events} ${filter}`, 'scheduled_time ASC, id', values, q, 'events');
  }

  async listInvocations(q: InvocationQuery): Promise<{ invocations: Json[]; count?: number }> {
    const t = TABLES[q.kind];
    const values: unknown[] = [];
    const where: string[] = [];
    if (q.eventId !== undefined) {
      values.push(q.eventId);
      where.push(`l.event_id = $${values.length}`);
    }
    if (q.triggerName !== undefined && q.kind === 'cron') {
      values.push(q.triggerName);
      where.push(`e.trigger_name = $${values.length}`);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const select = `SELECT l.id, l.event_id, l.status, l.request, l.response, l.created_at FROM ${t.logs} l JOIN ${t.events} e ON e.id = l.event_id ${filter}`;
    const out = await this.page(select, 'created_at DESC, id', values, q, 'invocations');
    return out as { invocations: Json[]; count?: number };
  }

  private async page<K extends string>(
    select: string,
    order: string,
    values: unknown[],
    q: { limit?: number; offset?: number; countRows: boolean },
    key: K,
  ): Promise<Record<K, Json[]> & { count?: number }> {
    const params = [...values];
    let paging = '';
    if (q.limit !== undefined) {
      params.push(q.limit);
      paging += ` LIMIT $${params.length}`;
    }
    if (q.offset !== undefined) {
      params.push(q.offset);
      paging += ` OFFSET $${params.length}`;
    }
    const { rows } = await this.query<{ rows: Json[] }>(
      `SELECT coalesce(json_agg(row_to_json(r)), '[]'::json) AS rows FROM (SELECT * FROM (${select}) s ORDER BY ${order}${paging}) r`,
      params,
    );
    const out = { [key]: rows[0]!.rows } as Record<K, Json[]> & { count?: number };
    if (q.countRows) {
      const c = await this.query<{ n: string }>(`SELECT count(*) AS n FROM (${select}) s`, values);
      out.count = Number(c.rows[0]!.n);
    }
    return out;
  }

  async deleteEvent(kind: ScheduledEventKind, id: string): Promise<boolean> {
    const { rowCount } = await this.query(`DELETE FROM ${TABLES[kind].events} WHERE id = $1`, [id]);
    return (rowCount ?? 0) > 0;
  }

}
