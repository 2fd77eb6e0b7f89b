/**
 * The pools on the metadata database (the metadata store's, and the catalog table stores' of
 * scheduled events and async actions) have the stall guard of --pg-statement-timeout: behind a
 * TCP proxy that stalls (test/helpers/stalling-proxy.ts) a call fails with the coded
 * `statement-timeout` within the timeout plus the guard's grace, instead of waiting until the
 * operating system gives up, and once the proxy forwards again the same store works without a
 * restart. These pools run statements through pg-pool's `Pool#query`, the callback form of
 * `Client#query` the guard now covers; the engine-level case checks the wiring from the option.
 */
import { expect } from 'chai';
import { PgMetadataStore } from '../../../../plugins/db/postgres/metadata-store.js';
import { PgActionLogStore } from '../../../../plugins/metadata/actions/action-log-pg.js';
import { PgScheduledEventStore } from '../../../../plugins/trigger/scheduled-triggers/pg-store.js';
import { STALL_GRACE_MS } from '../../../../plugins/db/postgres/stall-guard.js';
import { startStallingProxyTo, type StallingDatabaseProxy } from '../../../helpers/stalling-proxy.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../../helpers/engine.js';
import { emptyMetadata } from '../../../../core/metadata/types.js';
import type { Engine } from '../../../../core/engine.js';
import { isEngineError } from '../../../../core/errors.js';

const TIMEOUT_S = 1;
/** The guard's bound, plus room for a loaded machine. */
const BOUND_MS = TIMEOUT_S * 1000 + STALL_GRACE_MS + 1500;

async function timedFailure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await work();
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected the call to fail while the path stalls');
}

/**
 * The first call on a stalled path meets a statement in flight (`statement-timeout`); later ones
 * need a new connection, which cannot be opened within the timeout either.
 */
function expectCodedWithinBound(outcome: { error: unknown; ms: number }, code = 'statement-timeout'): void {
  expect(isEngineError(outcome.error), String(outcome.error)).to.equal(true);
  expect((outcome.error as { code: string }).code).to.equal(code);
  expect((outcome.error as Error).message).to.match(/metadata database/);
  expect(outcome.ms).to.be.lessThan(BOUND_MS);
}

const NO_CONNECTION = 'connection-not-established';

describe('db/postgres: the metadata database pools behind a stalling proxy', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let proxy: StallingDatabaseProxy;

  before(async () => {
    db = await createTestDatabase('refactor_meta_stall');
    proxy = await startStallingProxyTo(db.url);
  });
  afterEach(() => proxy.resume());

  /** Resumed any earlier, the proxy would deliver what it held on a connection the guard gave up on. */
  async function connectionsClosed(): Promise<void> {
    const deadline = Date.now() + 2000;
    while (proxy.openConnections > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(proxy.openConnections).to.equal(0);
  }
  after(async () => {
    await proxy?.close();
    await db?.drop();
  });

  it('the metadata store: a read fails with statement-timeout while stalled, and works once the path is back', async () => {
    const store = new PgMetadataStore(async () => ({ connectionString: proxy.url, maxConnections: 2, statementTimeoutSeconds: TIMEOUT_S }));
    try {
      await store.init(() => emptyMetadata());
      expect((await store.read()).resourceVersion).to.equal(1);
      proxy.stall();
      expectCodedWithinBound(await timedFailure(() => store.read()));
      expectCodedWithinBound(await timedFailure(() => store.write(emptyMetadata(), 1)), NO_CONNECTION);
      proxy.resume();
      expect(await store.write(emptyMetadata(), 1)).to.equal(2);
    } finally {
      await store.close();
    }
  });

  it('the async-action log: claims fail with statement-timeout while stalled, and the store recovers', async () => {
    const store = new PgActionLogStore({ connectionString: proxy.url, statementTimeoutSeconds: TIMEOUT_S });
    try {
      const created = await store.create({ actionName: 'a', input: { x: 1 }, sessionVariables: {}, requestHeaders: [] });
      proxy.stall();
      expectCodedWithinBound(await timedFailure(() => store.claim(10, 60)));
      // The guard closed the connection: what the proxy held never reaches the database.
      await connectionsClosed();
      proxy.resume();
      const claimed = await store.claim(10, 60);
      expect(claimed.map((c) => c.id)).to.deep.equal([created.id]);
    } finally {
      await store.close();
    }
  });

  it('the scheduled-event store: a transaction (cron lock) and a plain query fail with statement-timeout while stalled', async () => {
    const store = new PgScheduledEventStore({ connectionString: proxy.url, statementTimeoutSeconds: TIMEOUT_S });
    try {
      await store.init();
      proxy.stall();
      expectCodedWithinBound(await timedFailure(() => store.withCronTriggers(['t'], (tx) => tx.backlog(['t']))));
      expectCodedWithinBound(await timedFailure(() => store.listEvents({ kind: 'one_off', countRows: true })), NO_CONNECTION);
      proxy.resume();
      expect(await store.listEvents({ kind: 'one_off', countRows: true })).to.deep.equal({ events: [], count: 0 });
    } finally {
      await store.close();
    }
  });

  it('an engine whose metadata database path stalls answers metadata calls with statement-timeout, then recovers', async () => {
    let engine: Engine | undefined;
    try {
      // A fresh catalog (the cases above left one without the default source).
      await db.sql('DROP SCHEMA IF EXISTS svc_catalog CASCADE');
      engine = await startTestEngine({ databaseUrl: db.url, metadataDatabaseUrl: proxy.url, pgStatementTimeout: TIMEOUT_S, schemaSyncPollInterval: 0 });
      await db.sql('CREATE TABLE IF NOT EXISTS note (id int PRIMARY KEY)');
      proxy.stall();
      const started = Date.now();
      const tracked = await metadata(engine, { type: 'pg_track_table', args: { table: 'note' } });
      expect(Date.now() - started).to.be.lessThan(2 * BOUND_MS);
      expect(tracked.body.code, JSON.stringify(tracked.body)).to.be.oneOf(['statement-timeout', NO_CONNECTION]);
      const scheduled = await metadata(engine, {
        type: 'create_scheduled_event',
        args: { webhook: 'http://127.0.0.1:1/hook', schedule_at: new Date(Date.now() + 3_600_000).toISOString() },
      });
      expect(scheduled.body.code, JSON.stringify(scheduled.body)).to.be.oneOf(['statement-timeout', NO_CONNECTION]);
      await connectionsClosed();
      proxy.resume();
      const retried = await metadata(engine, { type: 'pg_track_table', args: { table: 'note' } });
      expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
      expect((await call(engine, '/v1/graphql', { query: '{ note { id } }' })).body).to.deep.equal({ data: { note: [] } });
    } finally {
      await engine?.close();
    }
  });
});
