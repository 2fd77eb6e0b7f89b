/**
 * Event trigger benchmark: (1) delivery throughput, events per second from a captured batch to a
 * local webhook sink that answers at once; (2) capture overhead, the cost the capture trigger adds
 * to a single-row INSERT (sequential inserts on one connection, with and without capture, rounds
 * interleaved to spread noise). Goals (issue 14): >= 2,000 events/s; < 30% added to an insert.
 *
 *   npx tsx test/bench/events.ts [--quick] [--events N] [--inserts N]
 *
 * Figures taken on a shared machine are noisy; take the recorded ones on a quiet machine.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase } from '../helpers/database.js';
import { metadata, startTestEngine } from '../helpers/engine.js';
import { startWebhookSink } from '../helpers/webhook-sink.js';

export interface EventsBenchResult {
  mode: 'quick' | 'full';
  events: number;
  deliverySeconds: number;
  eventsPerSecond: number;
  webhookCalls: number;
  inserts: number;
  plainInsertMs: number;
  capturedInsertMs: number;
  captureOverheadPercent: number;
}

const SQL = `
CREATE TABLE plain (id serial PRIMARY KEY, name text NOT NULL, n int);
CREATE TABLE captured (id serial PRIMARY KEY, name text NOT NULL, n int);
CREATE TABLE burst (id serial PRIMARY KEY, n int NOT NULL);`;

async function throughput(dbUrl: string, events: number, env: NodeJS.ProcessEnv, sinkUrl: string): Promise<{ seconds: number }> {
  const engine = await startTestEngine({ databaseUrl: dbUrl, eventsFetchInterval: 20 }, { env });
  try {
    const ok = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'burst' } },
        { type: 'pg_create_event_trigger', args: { name: 'burst', table: 'burst', webhook: `${sinkUrl}/burst`, insert: { columns: '*' } } },
      ],
    });
    if (ok.status !== 200) throw new Error(JSON.stringify(ok.body));
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    try {
      await client.query(`INSERT INTO burst (n) SELECT g FROM generate_series(1, $1::int) g`, [events]);
      const started = performance.now();
      for (;;) {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM svc_catalog.event_log WHERE trigger_name = 'burst' AND delivered`);
        if (rows[0].n >= events) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return { seconds: (performance.now() - started) / 1000 };
    } finally {
      await client.end();
    }
  } finally {
    await engine.close();
  }
}

async function captureOverhead(dbUrl: string, env: NodeJS.ProcessEnv, sinkUrl: string, inserts: number): Promise<{ plain: number; captured: number }> {
  // The engine installs the capture, then stops: what is measured is the trigger alone.
  const engine = await startTestEngine({ databaseUrl: dbUrl }, { env });
  try {
    const ok = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'captured' } },
        { type: 'pg_create_event_trigger', args: { name: 'captured', table: 'captured', webhook: `${sinkUrl}/captured`, insert: { columns: '*' } } },
      ],
    });
    if (ok.status !== 200) throw new Error(JSON.stringify(ok.body));
  } finally {
    await engine.close();
  }
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const run = async (table: string, count: number): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < count; i++) await client.query({ name: `ins_${table}`, text: `INSERT INTO ${table} (name, n) VALUES ($1, $2)`, values: ['x', i] });
      return performance.now() - started;
    };
    await run('plain', 200);
    await run('captured', 200);
    let plain = 0;
    let captured = 0;
    const rounds = 10;
    const per = Math.max(1, Math.floor(inserts / rounds));
    for (let r = 0; r < rounds; r++) {
      plain += await run('plain', per);
      captured += await run('captured', per);
    }
    return { plain: plain / (per * rounds), captured: captured / (per * rounds) };
  } finally {
    await client.end();
  }
}

export async function runEventsBench(mode: 'quick' | 'full', overrides: { events?: number; inserts?: number } = {}): Promise<EventsBenchResult> {
  const events = overrides.events ?? (mode === 'quick' ? 2000 : 20000);
  const inserts = overrides.inserts ?? (mode === 'quick' ? 1000 : 10000);
  const db = await createTestDatabase('bench_events', SQL);
  const sink = await startWebhookSink();
  const env = { ...process.env };
  try {
    const t = await throughput(db.url, events, env, sink.url);
    const c = await captureOverhead(db.url, env, sink.url, inserts);
    return {
      mode,
      events,
      deliverySeconds: t.seconds,
      eventsPerSecond: events / t.seconds,
      webhookCalls: sink.requests.length,
      inserts,
      plainInsertMs: c.plain,
      capturedInsertMs: c.captured,
      captureOverheadPercent: ((c.captured - c.plain) / c.plain) * 100,
    };
  } finally {
    await sink.close();
    await db.drop();
  }
}

export function formatEventsBench(r: EventsBenchResult): string {
  return [
    `| measure | value | goal |`,
    `|---|---|---|`,
    `| events delivered per second (${r.events} events, local sink) | ${r.eventsPerSecond.toFixed(0)} | >= 2000 |`,
    `| single-row INSERT, no capture (mean of ${r.inserts}) | ${r.plainInsertMs.toFixed(3)} ms | |`,
    `| single-row INSERT, with capture | ${r.capturedInsertMs.toFixed(3)} ms | |`,
    `| capture overhead on a single-row INSERT | ${r.captureOverheadPercent.toFixed(1)} % | < 30 % |`,
  ].join('\n');
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, events: { type: 'string' }, inserts: { type: 'string' } } });
  const mode = values.quick ? 'quick' : 'full';
  const result = await runEventsBench(mode, {
    ...(values.events ? { events: Number(values.events) } : {}),
    ...(values.inserts ? { inserts: Number(values.inserts) } : {}),
  });
  console.log(formatEventsBench(result));
  if (mode === 'full') {
    const out = join(dirname(fileURLToPath(import.meta.url)), 'results', `events-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(`written ${out}`);
  }
}
