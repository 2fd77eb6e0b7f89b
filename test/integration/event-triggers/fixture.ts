/**
 * The event trigger tests' world: a fresh database with `author` and `book`, both tracked, an
 * engine polling events every 50 ms, a webhook sink in the test process, and helpers to read the
 * source's event log.
 */
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';

export const SCHEMA_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, age int, bio text, score numeric);
CREATE TABLE book (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));
`;

export interface EventFixture {
  db: TestDatabase;
  engine: Engine;
  sink: WebhookSink;
  env: Record<string, string>;
  /** Rows of the source's event log (svc_catalog.event_log), oldest first. */
  events(trigger?: string): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  invocations(eventId: string): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function startEventFixture(prefix: string, config: Partial<ServerConfig> = {}, env: Record<string, string> = {}): Promise<EventFixture> {
  const db = await createTestDatabase(prefix, SCHEMA_SQL);
  const sink = await startWebhookSink();
  const fullEnv = { ...process.env, ...env, SINK_URL: sink.url } as Record<string, string>;
  const engine = await startTestEngine({ databaseUrl: db.url, eventsFetchInterval: 50, ...config }, { env: fullEnv });
  const ok = await metadata(engine, {
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'book' } },
    ],
  });
  if (ok.status !== 200) throw new Error(`tracking failed: ${JSON.stringify(ok.body)}`);
  return {
    db,
    engine,
    sink,
    env: fullEnv,
    events: async (trigger) =>
      (
        await db.sql(
          `SELECT id, trigger_name, payload, delivered, error, tries, locked, next_retry_at, archived, created_at FROM svc_catalog.event_log
           WHERE $1::text IS NULL OR trigger_name = $1 ORDER BY created_at, id`,
          [trigger ?? null],
        )
      ).rows,
    invocations: async (eventId) =>
      (await db.sql(`SELECT status, request, response FROM svc_catalog.event_invocation_logs WHERE event_id = $1 ORDER BY created_at`, [eventId])).rows,
    close: async () => {
      await engine.close();
      await sink.close();
      await db.drop();
    },
  };
}
