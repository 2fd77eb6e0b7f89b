/**
 * At-least-once across a crash: 10,000 events are captured, the engine (a real process) is killed
 * with SIGKILL while deliveries are in flight, and a new engine is started on the same database.
 * Every event must reach the webhook at least once and end `delivered`; duplicates (events whose
 * delivery the dead engine made but could not record) are counted and reported. The claims of the
 * dead engine are taken over after the lock timeout, set short here through the plugin config.
 * SVC_CRASH_EVENTS changes the count (the acceptance run uses 10,000).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { spawnEngine, type EngineProcess } from '../../helpers/engine-process.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';
import { DEFAULT_PLUGIN_CONFIG } from '../../../core/kernel/loader.js';
import { readFileSync } from 'node:fs';

const EVENTS = Number(process.env['SVC_CRASH_EVENTS'] ?? 10_000);

describe('event triggers: SIGKILL with events in flight', function () {
  this.timeout(240_000);
  let db: TestDatabase;
  let sink: WebhookSink;
  let dir: string;
  const engines: EngineProcess[] = [];

  before(async () => {
    db = await createTestDatabase('et_crash', 'CREATE TABLE job (id serial PRIMARY KEY, n int NOT NULL);');
    sink = await startWebhookSink();
    // A little latency keeps many deliveries in flight when the engine dies.
    sink.respond(() => new Promise((r) => setTimeout(() => r({}), 5)));
    dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
  });
  after(async () => {
    for (const e of engines) if (e.child.exitCode === null) e.child.kill('SIGKILL');
    await sink?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<EngineProcess> => {
    const preset = JSON.parse(readFileSync(DEFAULT_PLUGIN_CONFIG, 'utf8')) as { plugins: Array<string | { id: string }> };
    const plugins = preset.plugins.map((p) =>
      p === 'trigger/event-trigger-runner' ? { id: p, options: { lockTimeoutSeconds: 3 } } : p,
    );
    const config = join(dir, 'plugins.json');
    writeFileSync(config, JSON.stringify({ plugins }));
    const engine = await spawnEngine({
      ...process.env,
      SVC_GRAPHQL_DATABASE_URL: db.url,
      SVC_GRAPHQL_PLUGIN_CONFIG: config,
      SVC_GRAPHQL_EVENTS_FETCH_INTERVAL: '50',
      SVC_GRAPHQL_ENABLED_LOG_TYPES: 'startup',
      SVC_GRAPHQL_LOG_LEVEL: 'error',
    });
    engines.push(engine);
    return engine;
  };

  it(`delivers every one of ${EVENTS} events at least once after a SIGKILL and a restart`, async () => {
    const first = await start();
    const post = async (body: unknown) => {
      const res = await fetch(`${first.url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).to.equal(200);
    };
    await post({ type: 'pg_track_table', args: { table: 'job' } });
    await post({ type: 'pg_create_event_trigger', args: { name: 'jobs', table: 'job', webhook: `${sink.url}/jobs`, insert: { columns: '*' } } });
    await db.sql(`INSERT INTO job (n) SELECT g FROM generate_series(1, $1::int) g`, [EVENTS]);

    // Kill it mid-stream: some delivered, some in flight, most still pending.
    await sink.waitFor((rs) => rs.length >= Math.min(1000, EVENTS / 4), 120_000, 'the first deliveries');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const beforeRestart = sink.requests.length;
    const locked = (await db.sql(`SELECT count(*)::int AS n FROM svc_catalog.event_log WHERE locked IS NOT NULL AND NOT delivered`)).rows[0].n as number;

    const second = await start();
    const ids = () => new Set(sink.requests.map((r) => r.json?.id as string));
    await sink.waitFor(() => ids().size === EVENTS, 180_000, `all ${EVENTS} events`);
    const done = async () => (await db.sql(`SELECT count(*)::int AS n FROM svc_catalog.event_log WHERE delivered`)).rows[0].n as number;
    const deadline = Date.now() + 30_000;
    while ((await done()) < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const stats = (await db.sql(`SELECT count(*)::int AS total, count(*) FILTER (WHERE delivered)::int AS delivered, count(*) FILTER (WHERE error)::int AS error FROM svc_catalog.event_log`)).rows[0];
    const duplicates = sink.requests.length - ids().size;
    console.log(
      `      crash test: ${EVENTS} events, ${beforeRestart} webhook calls before SIGKILL, ${locked} claims left locked by the dead engine, ` +
        `${sink.requests.length} calls in all, ${duplicates} duplicate deliveries`,
    );
    expect(stats).to.deep.equal({ total: EVENTS, delivered: EVENTS, error: 0 });
    expect(ids().size).to.equal(EVENTS);
    // Only events claimed by the dead engine can be delivered twice.
    expect(duplicates).to.be.at.most(locked + 1000);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  });
});
