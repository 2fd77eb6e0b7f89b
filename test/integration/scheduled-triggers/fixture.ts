/**
 * The scheduled-trigger tests' world: a fresh database, engines whose runner polls every 50 ms,
 * a webhook sink, an optional fast clock (one scheduled minute per `msPerMinute` real ms, so an
 * every-minute cron trigger fires quickly), and helpers to read the event tables.
 */
import { asValue } from 'awilix';
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { DEFAULT_PLUGIN_CONFIG, loadPlugins } from '../../../core/kernel/loader.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startTestEngine } from '../../helpers/engine.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';
import { CLOCK_KEY, type SchedulerClock } from '../../../plugins/trigger/scheduled-triggers/context.js';

export interface ScheduledFixture {
  db: TestDatabase;
  sink: WebhookSink;
  env: Record<string, string>;
  engines: Engine[];
  startEngine(config?: Partial<ServerConfig>, runner?: Record<string, unknown>): Promise<Engine>;
  /** Makes every engine's scheduler see time `factor` times faster, from now on. */
  fastClock(factor: number): SchedulerClock;
  rows(sql: string, values?: unknown[]): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function startScheduledFixture(prefix: string): Promise<ScheduledFixture> {
  const db = await createTestDatabase(prefix);
  const sink = await startWebhookSink();
  const env = { ...process.env, SINK_URL: sink.url, SECRET_HEADER: 'sekret' } as Record<string, string>;
  const engines: Engine[] = [];
  let clock: SchedulerClock | undefined;
  const fixture: ScheduledFixture = {
    db,
    sink,
    env,
    engines,
    async startEngine(config = {}, runner = {}) {
      const loaded = await loadPlugins(DEFAULT_PLUGIN_CONFIG, ['metadata', 'graphql', 'pgdump', 'config']);
      const engine = await startTestEngine(
        { databaseUrl: db.url, schemaSyncPollInterval: 100, ...config },
        {
          env,
          plugins: {
            plugins: loaded.plugins,
            options: { ...loaded.options, 'trigger/scheduled-trigger-runner': { fetchIntervalMs: 50, generateIntervalSeconds: 1, ...runner } },
          },
        },
      );
      if (clock) engine.kernel.container.register(CLOCK_KEY, asValue(clock));
      engines.push(engine);
      return engine;
    },
    fastClock(factor) {
      const t0 = Date.now();
      clock = { now: () => new Date(t0 + (Date.now() - t0) * factor) };
      for (const e of engines) e.kernel.container.register(CLOCK_KEY, asValue(clock));
      return clock;
    },
    rows: async (sql, values) => (await db.sql(sql, values)).rows,
    async close() {
      for (const e of engines) await e.close();
      await sink.close();
      await db.drop();
    },
  };
  return fixture;
}
