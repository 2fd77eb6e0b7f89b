/**
 * Time limits on statements (statement-deadline.ts): every statement under a deadline shares one
 * timer, set for the earliest deadline. These run real statements on a real server and check that
 * a later, shorter deadline still cancels on time, that a finished statement's deadline never
 * fires, and that the timer carries on after firing with nothing due.
 */
import { expect } from 'chai';
import { EngineError } from '../../../../core/errors.js';
import { PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { createTestDatabase, dropTestDatabase, resolvedFor } from './helpers.js';

const SLEEP = 'SELECT pg_sleep($1::float8)::text';

async function outcome(p: Promise<unknown>): Promise<{ ms: number; code: string | undefined }> {
  const start = Date.now();
  try {
    await p;
    return { ms: Date.now() - start, code: undefined };
  } catch (e) {
    return { ms: Date.now() - start, code: e instanceof EngineError ? e.code : String(e) };
  }
}

describe('db/postgres statement deadlines', function () {
  this.timeout(30_000);
  let dbName: string;
  let pool: PgSourcePool;

  before(async () => {
    dbName = await createTestDatabase('svc_test_deadline');
    pool = new PgSourcePool(resolvedFor(dbName));
  });

  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  it('cancels a statement at its deadline when an earlier statement set the shared timer for later', async () => {
    const long = outcome(pool.queryJsonText(undefined, SLEEP, [1.5], Date.now() + 20_000));
    // Let the long one's deadline set the timer first.
    await new Promise((r) => setTimeout(r, 50));
    const short = await outcome(pool.queryJsonText(undefined, SLEEP, [10], Date.now() + 300));
    expect(short.code).to.equal('time-limit-exceeded');
    expect(short.ms).to.be.below(3_000);
    // The long statement finished on its own, its deadline far away.
    expect(await long).to.include({ code: undefined });
  });

  it('never fires for a statement that finished before its deadline, and keeps watching after', async () => {
    // Finishes well before its deadline; the timer set for it fires with nothing due.
    expect(await outcome(pool.queryJsonText(undefined, SLEEP, [0.05], Date.now() + 200))).to.include({ code: undefined });
    await new Promise((r) => setTimeout(r, 400));
    // The connection that ran it was not cancelled or destroyed after the fact: it still answers.
    expect(await pool.queryJsonText(undefined, 'SELECT 1::text')).to.equal('1');
    // Later statements are still watched.
    const late = await outcome(pool.queryJsonText(undefined, SLEEP, [10], Date.now() + 250));
    expect(late.code).to.equal('time-limit-exceeded');
    expect(late.ms).to.be.below(3_000);
  });

  it('cancels every statement whose deadline passed together', async () => {
    const at = Date.now() + 300;
    const all = await Promise.all([1, 2, 3].map(() => outcome(pool.queryJsonText(undefined, SLEEP, [10], at))));
    expect(all.map((o) => o.code)).to.deep.equal(['time-limit-exceeded', 'time-limit-exceeded', 'time-limit-exceeded']);
  });

  it('cancels only the statements whose deadline passed, whatever order they started and ended in', async () => {
    const now = Date.now();
    const runs = [
      outcome(pool.queryJsonText(undefined, SLEEP, [0.6], now + 20_000)),
      outcome(pool.queryJsonText(undefined, SLEEP, [10], now + 400)),
      // Ends first, from the middle of the watched statements.
      outcome(pool.queryJsonText(undefined, SLEEP, [0.05], now + 20_000)),
      outcome(pool.queryJsonText(undefined, SLEEP, [10], now + 500)),
      outcome(pool.queryJsonText(undefined, SLEEP, [0.8], now + 30_000)),
    ];
    const codes = (await Promise.all(runs)).map((o) => o.code);
    expect(codes).to.deep.equal([undefined, 'time-limit-exceeded', undefined, 'time-limit-exceeded', undefined]);
  });

  it('does not reuse a connection it sent a cancel request to: a late cancel cannot hit the next statement', async () => {
    const single = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
    try {
      const before = await single.queryJsonText(undefined, 'SELECT pg_backend_pid()::text');
      expect(await outcome(single.queryJsonText(undefined, SLEEP, [10], Date.now() + 200))).to.include({ code: 'time-limit-exceeded' });
      const after = await single.queryJsonText(undefined, 'SELECT pg_backend_pid()::text');
      expect(after).to.not.equal(before);
      // A statement that finished before its deadline keeps its connection.
      expect(await outcome(single.queryJsonText(undefined, SLEEP, [0.01], Date.now() + 5_000))).to.include({ code: undefined });
      expect(await single.queryJsonText(undefined, 'SELECT pg_backend_pid()::text')).to.equal(after);
    } finally {
      await single.close();
    }
  });

  it('refuses to start a statement whose deadline already passed', async () => {
    expect(await outcome(pool.queryJsonText(undefined, SLEEP, [1], Date.now() - 1))).to.include({ code: 'time-limit-exceeded' });
  });
});
