/**
 * The metadata database's rate store under a stall (plugins/limits/rate/pg-store.ts): a
 * reservation that cannot proceed (its key's row locked by a stuck session) fails after the stall
 * guard instead of holding its requests indefinitely, the lease set refuses the waiting request
 * with the store's error, and once the lock goes the same key is served again. A server that does
 * not answer at all (a stalled network path) is given up by the client a little after the guard,
 * and the connection is not reused.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { RateLeases } from '../../../plugins/limits/rate/leases.js';
import { PgRateStore } from '../../../plugins/limits/rate/pg-store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startStallingProxyTo } from '../../helpers/stalling-proxy.js';

describe('rate store stall guard (metadata database)', function () {
  this.timeout(30_000);
  let db: TestDatabase | undefined;
  before(async () => {
    db = await createTestDatabase('limits_rate_stall', 'CREATE SCHEMA svc_catalog');
  });
  after(() => db?.drop());

  it('fails a reservation held up by a locked row after the guard, then serves the key again', async () => {
    const store = new PgRateStore(db!.url, { timeoutMs: 300 });
    const leases = new RateLeases(store, { windowMs: 60_000 });
    const holder = new pg.Client({ connectionString: db!.url });
    await holder.connect();
    const key = `svc:lease:test:${randomBytes(6).toString('hex')}`;
    try {
      // An exact limit (5 a window): every operation reserves in the store.
      expect(await leases.take(key, 5)).to.equal(true);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM svc_catalog.svc_rate_lease WHERE key = $1 FOR UPDATE', [key]);
      const startedAt = performance.now();
      const stalled = await Promise.resolve(leases.take(key, 5)).then(
        () => 'admitted',
        (e: unknown) => (e as { code?: string }).code ?? String(e),
      );
      const waitedMs = performance.now() - startedAt;
      // The server gave up (lock_timeout 55P03 or statement_timeout 57014), before the client-side timeout.
      expect(stalled).to.be.oneOf(['55P03', '57014']);
      expect(waitedMs).to.be.within(250, 3000);
      await holder.query('ROLLBACK');
      expect(await leases.take(key, 5)).to.equal(true);
    } finally {
      await holder.end();
      await leases.close();
    }
  });

  it('gives up a reservation the server never answers (a stalled path) and serves the key over a fresh connection', async () => {
    const proxy = await startStallingProxyTo(db!.url);
    const store = new PgRateStore(proxy.url, { timeoutMs: 300 });
    const leases = new RateLeases(store, { windowMs: 60_000 });
    const key = `svc:lease:test:${randomBytes(6).toString('hex')}`;
    try {
      expect(await leases.take(key, 5)).to.equal(true);
      proxy.stall();
      const startedAt = performance.now();
      const stalled = await Promise.resolve(leases.take(key, 5)).then(
        () => 'admitted',
        (e: unknown) => (e instanceof Error ? e.name : String(e)),
      );
      const waitedMs = performance.now() - startedAt;
      // Neither the server's answer nor its cancellation gets through: the client's own guard
      // (the server's timeout plus STALL_GRACE_MS) fails the reservation.
      expect(stalled).to.equal('StatementStalledError');
      expect(waitedMs).to.be.within(1200, 5000);
      proxy.resume();
      // The stalled connection was destroyed: a new one serves the key (at most three of the limit's five reserved).
      expect(await leases.take(key, 5)).to.equal(true);
      expect(proxy.openConnections).to.be.at.most(2);
    } finally {
      proxy.resume();
      await leases.close();
      await proxy.close();
    }
  });
});
