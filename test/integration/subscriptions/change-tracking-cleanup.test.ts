/**
 * Change tracking leaves nothing behind on user tables: the statement trigger a live query
 * installs goes when its table is untracked or its source dropped, and every one (with the
 * notify function) goes when an engine starts with --live-queries-change-tracking=false.
 */
import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { metadata, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, Received, startSubsFixture, transportClient, type SubsFixture } from './fixture.js';

describe('subscriptions: change-tracking triggers are cleaned up (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  const clients: Client[] = [];

  before(async () => {
    f = await startSubsFixture('limits2_ct_cleanup', { liveQueriesMultiplexedRefetchInterval: 100, liveQueriesChangeTracking: true });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await f?.close();
  });

  const triggered = async (): Promise<string[]> =>
    (
      await f.db.sql(
        `SELECT c.relname FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid WHERE tg.tgname = 'svc_live_query_change' ORDER BY 1`,
      )
    ).rows.map((r: { relname: string }) => r.relname);
  const notifyFunction = async (): Promise<boolean> =>
    (await f.db.sql(`SELECT to_regprocedure('svc_catalog.svc_live_query_notify()') IS NOT NULL AS present`)).rows[0].present;

  /** Subscribes until the poller's tables are watched (the trigger shows in the catalog). */
  const watch = async (query: string, table: string) => {
    // A fresh client each time: metadata changes close the sockets (1012).
    const client = transportClient(f.wsUrl, ADMIN);
    clients.push(client);
    const r = new Received();
    const stop = client.subscribe({ query }, r.sink);
    await r.nth(0);
    const deadline = Date.now() + 10_000;
    while (!(await triggered()).includes(table)) {
      if (Date.now() > deadline) throw new Error(`no change trigger on ${table}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    stop();
  };

  it('drops the trigger of an untracked table, and the function with the last trigger', async () => {
    await watch('subscription { article { id } }', 'article');
    await watch('subscription { other { id } }', 'other');
    expect(await triggered()).to.deep.equal(['article', 'other']);
    const res = await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'other', cascade: true } }, ADMIN);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await triggered()).to.deep.equal(['article']);
    expect(await notifyFunction()).to.equal(true);
    const again = await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'article', cascade: true } }, ADMIN);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(await triggered()).to.deep.equal([]);
    expect(await notifyFunction()).to.equal(false);
  });

  it('an engine started with change tracking off removes every trigger', async () => {
    await watch('subscription { author { id } }', 'author');
    const off = await startTestEngine({ databaseUrl: f.db.url, adminSecret: ADMIN_SECRET, liveQueriesChangeTracking: false });
    try {
      expect(await triggered()).to.deep.equal([]);
      expect(await notifyFunction()).to.equal(false);
    } finally {
      await off.close();
    }
  });

  it('drops the triggers of a dropped source', async () => {
    const res = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'other' } }, ADMIN);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await watch('subscription { author { id } }', 'author');
    await watch('subscription { other { id } }', 'other');
    const dropped = await metadata(f.engine, { type: 'pg_drop_source', args: { name: 'default', cascade: true } }, ADMIN);
    expect(dropped.status, JSON.stringify(dropped.body)).to.equal(200);
    expect(await triggered()).to.deep.equal([]);
    expect(await notifyFunction()).to.equal(false);
  });
});
