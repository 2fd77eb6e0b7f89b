/**
 * A transaction in one round trip (PgSourcePool.transactionInOneTrip, ./pipeline.ts): every
 * statement is written at once and closed by one Sync. Round trips are counted as the
 * ReadyForQuery messages the connection receives (one per Sync).
 */
import { expect } from 'chai';
import type pg from 'pg';
import { PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { PipelineStepError } from '../../../../plugins/db/postgres/pipeline.js';
import { PG_PORT, createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';
import { startStallingProxy } from '../../../helpers/stalling-proxy.js';
import type { EngineError } from '../../../../core/errors.js';
import { rejection } from '../../../helpers/rejection.js';


describe('db/postgres: a transaction in one round trip', function () {
  this.timeout(30_000);
  let dbName: string;
  let pool: PgSourcePool;
  let readyForQuery = 0;
  /** The CommandComplete tags the connection received (BEGIN, COMMIT, INSERT 0 1, ...). */
  const commands: string[] = [];

  before(async () => {
    dbName = await createTestDatabase('svc_test_perf_pipeline');
    await runScript(
      dbName,
      `CREATE TABLE item (id integer PRIMARY KEY, label text NOT NULL);
       CREATE TABLE seen (who text);
       CREATE FUNCTION log_user() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN INSERT INTO seen VALUES (current_setting('svc.user', true)); RETURN NEW; END $$;
       CREATE TRIGGER item_user AFTER INSERT ON item FOR EACH ROW EXECUTE FUNCTION log_user();
       CREATE TABLE parent (id int PRIMARY KEY);
       CREATE TABLE child (parent_id int REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);`,
    );
    // One connection, so every statement of these tests goes over the one being watched.
    pool = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
    const inner = (pool as unknown as { pool: pg.Pool }).pool;
    inner.on('connect', (client) => {
      const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
      connection.on('readyForQuery', () => readyForQuery++);
      connection.on('commandComplete', (msg: { text: string }) => commands.push(msg.text));
    });
    await pool.query('SELECT 1');
  });
  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });
  beforeEach(() => pool.query('TRUNCATE item, seen, child, parent'));

  const count = async (table: string): Promise<number> => (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

  it('runs BEGIN, the statements and COMMIT in one round trip, and answers each statement', async () => {
    const before = readyForQuery;
    const rows = await pool.transactionInOneTrip('read-committed', [
      { text: `SELECT set_config('svc.user', $1, true)`, values: ['{"x-svc-role":"user"}'] },
      { text: 'INSERT INTO item VALUES ($1, $2) RETURNING id, label', values: [1, 'one'] },
      { text: 'INSERT INTO item VALUES ($1, $2), ($3, $4) RETURNING id', values: [2, 'two', 3, 'three'] },
      { text: `SELECT current_setting('transaction_isolation')` },
    ]);
    expect(readyForQuery - before).to.equal(1);
    expect(rows).to.deep.equal([[['{"x-svc-role":"user"}']], [['1', 'one']], [['2'], ['3']], [['read committed']]]);
    expect(await count('item')).to.equal(3);
    // The trigger saw the session set by an earlier statement of the same message.
    expect((await pool.query('SELECT who FROM seen')).rows.map((r) => r['who'])).to.deep.equal(Array(3).fill('{"x-svc-role":"user"}'));
    // The setting was transaction-local.
    expect((await pool.query(`SELECT current_setting('svc.user', true) AS s`)).rows[0]!['s'] ?? '').to.equal('');
  });

  it('runs nothing after a failing statement and rolls back what ran before it', async () => {
    const before = readyForQuery;
    const e = await rejection(
      pool.transactionInOneTrip('serializable', [
        { text: 'INSERT INTO item VALUES ($1, $2)', values: [1, 'kept?'] },
        { text: 'INSERT INTO item VALUES ($1, $2)', values: [1, 'duplicate'] },
        { text: 'INSERT INTO item VALUES ($1, $2)', values: [9, 'never'] },
      ]),
    );
    expect(e).to.be.instanceOf(PipelineStepError);
    expect((e as PipelineStepError).index).to.equal(1);
    expect(((e as PipelineStepError).cause as { code?: string }).code).to.equal('23505');
    // One round trip for the pipeline, one for the ROLLBACK.
    expect(readyForQuery - before).to.equal(2);
    expect(await count('item')).to.equal(0);
    expect(await count('seen')).to.equal(0);
  });

  it('reports a failing COMMIT (a deferred constraint) as the step after the last', async () => {
    const steps = [{ text: 'INSERT INTO child VALUES (42)' }];
    const e = await rejection(pool.transactionInOneTrip('read-committed', steps));
    expect((e as PipelineStepError).index).to.equal(steps.length);
    expect(((e as PipelineStepError).cause as { code?: string }).code).to.equal('23503');
    expect(await count('child')).to.equal(0);
    // The connection is still usable.
    expect(await pool.transactionInOneTrip('read-committed', [{ text: 'INSERT INTO parent VALUES (42)' }, ...steps])).to.deep.equal([[], []]);
    expect(await count('child')).to.equal(1);
  });

  it('sends a transaction prefix with BEGIN in one round trip (withTransaction)', async () => {
    const before = readyForQuery;
    const seen = await pool.withTransaction('repeatable-read', false, async (tx) => {
      const r = await tx.queryTextRow(`SELECT current_setting('svc.user'), current_setting('transaction_isolation')`);
      return r;
    }, undefined, [{ text: `SELECT set_config('svc.user', $1, true)`, values: ['s'] }]);
    expect(seen).to.deep.equal(['s', 'repeatable read']);
    // BEGIN + prefix, the statement, COMMIT.
    expect(readyForQuery - before).to.equal(3);
  });

  it('prepares named steps once per connection, also when a step fails after its Parse', async () => {
    const prepared = new PgSourcePool(resolvedFor(dbName, { use_prepared_statements: true, pool_settings: { max_connections: 1 } }));
    try {
      await preparesOnce(prepared);
    } finally {
      await prepared.close();
    }
  });

  async function preparesOnce(pool: PgSourcePool): Promise<void> {
    const insert = { text: 'INSERT INTO item VALUES ($1, $2)', name: 'svc_test_insert' };
    await pool.transactionInOneTrip('read-committed', [
      { ...insert, values: [1, 'a'] },
      { ...insert, values: [2, 'b'] },
    ]);
    // The named statement fails at execution: it was prepared anyway, and is reused next time.
    const e = await rejection(pool.transactionInOneTrip('read-committed', [{ ...insert, values: [1, 'again'] }]));
    expect(((e as PipelineStepError).cause as { code?: string }).code).to.equal('23505');
    await pool.transactionInOneTrip('read-committed', [{ ...insert, values: [3, 'c'] }]);
    const prepared = await pool.transactionInOneTrip('read-committed', [
      { text: `SELECT count(*) FROM pg_prepared_statements WHERE name = 'svc_test_insert'` },
    ]);
    expect(prepared).to.deep.equal([[['1']]]);
    expect(await count('item')).to.equal(3);
  }

  it('fails with statement-timeout, not a hang, when the path to the database stalls (--pg-statement-timeout)', async () => {
    const proxy = await startStallingProxy('127.0.0.1', PG_PORT);
    const guarded = new PgSourcePool({ ...resolvedFor(dbName, { pool_settings: { max_connections: 1 } }, proxy.port), statementTimeoutSeconds: 1 });
    try {
      await guarded.transactionInOneTrip('read-committed', [{ text: 'INSERT INTO item VALUES (50, $1)', values: ['before'] }]);
      proxy.stall();
      const started = Date.now();
      const e = (await rejection(guarded.transactionInOneTrip('read-committed', [{ text: 'INSERT INTO item VALUES (51, $1)', values: ['stalled'] }]))) as EngineError;
      // Three statements (BEGIN, the insert, COMMIT), each allowed the 1 s timeout, plus the grace.
      expect(Date.now() - started).to.be.lessThan(6000);
      expect(e.code).to.equal('statement-timeout');
      proxy.resume();
      await guarded.transactionInOneTrip('read-committed', [{ text: 'INSERT INTO item VALUES (52, $1)', values: ['after'] }]);
      // The stalled transaction's outcome is unknown to the client (the proxy may deliver what it
      // held once it forwards again), as with any connection lost mid-statement.
      expect((await pool.query('SELECT id FROM item WHERE id >= 50 ORDER BY id')).rows.map((r) => r['id'])).to.include.members([50, 52]);
    } finally {
      proxy.resume();
      await guarded.close();
      await proxy.close();
    }
  });

  it('passes values as pg renders them (arrays, null, numbers)', async () => {
    const rows = await pool.transactionInOneTrip('read-committed', [
      { text: 'SELECT $1::int[]::text, $2::text IS NULL, $3::numeric', values: [[1, 2, 3], null, 1.5] },
    ]);
    expect(rows).to.deep.equal([[['{1,2,3}', 't', '1.5']]]);
  });
  describe('at the connection\'s default isolation level: no BEGIN/COMMIT, the implicit transaction block', () => {
    const session = (who: string) => ({ text: `SELECT set_config('svc.user', $1, true)`, values: [who] });
    const since = (n: number): string[] => commands.slice(n);
    // The first one-trip transaction on the connection reads its default isolation (with BEGIN).
    beforeEach(() => pool.transactionInOneTrip('read-committed', [{ text: 'SELECT 1' }]));

    it('commits every statement at the Sync; triggers see the session, which ends with the transaction', async () => {
      const before = readyForQuery;
      const from = commands.length;
      const rows = await pool.transactionInOneTrip('read-committed', [
        session('implicit'),
        { text: 'INSERT INTO item VALUES ($1, $2) RETURNING id', values: [1, 'one'] },
        { text: 'INSERT INTO item VALUES ($1, $2) RETURNING id', values: [2, 'two'] },
        { text: `SELECT current_setting('transaction_isolation')` },
      ]);
      expect(readyForQuery - before).to.equal(1);
      expect(since(from)).to.deep.equal(['SELECT 1', 'INSERT 0 1', 'INSERT 0 1', 'SELECT 1']);
      expect(rows).to.deep.equal([[['implicit']], [['1']], [['2']], [['read committed']]]);
      expect((await pool.query('SELECT who FROM seen')).rows.map((r) => r['who'])).to.deep.equal(['implicit', 'implicit']);
      expect((await pool.query(`SELECT current_setting('svc.user', true) AS s`)).rows[0]!['s'] ?? '').to.equal('');
      expect(await count('item')).to.equal(2);
    });

    it('rolls back every statement before a failing one, without a ROLLBACK round trip', async () => {
      const before = readyForQuery;
      const e = await rejection(
        pool.transactionInOneTrip('read-committed', [
          session('rolled back'),
          { text: 'INSERT INTO item VALUES ($1, $2)', values: [1, 'kept?'] },
          { text: 'INSERT INTO item VALUES ($1, $2)', values: [1, 'duplicate'] },
          { text: 'INSERT INTO item VALUES ($1, $2)', values: [9, 'never'] },
        ]),
      );
      expect((e as PipelineStepError).index).to.equal(2);
      expect(((e as PipelineStepError).cause as { code?: string }).code).to.equal('23505');
      // The connection is clean for the next transaction, with no ROLLBACK in between.
      expect(await pool.transactionInOneTrip('read-committed', [{ text: `SELECT current_setting('svc.user', true)` }])).to.deep.equal([[['']]]);
      expect(readyForQuery - before).to.equal(2);
      expect(await count('item')).to.equal(0);
      expect(await count('seen')).to.equal(0);
    });

    it('reports a failing commit (a deferred constraint) as the step after the last', async () => {
      const from = commands.length;
      const e = await rejection(pool.transactionInOneTrip('read-committed', [{ text: 'INSERT INTO child VALUES (42)' }]));
      expect(since(from)).to.deep.equal(['INSERT 0 1']);
      expect((e as PipelineStepError).index).to.equal(1);
      expect(((e as PipelineStepError).cause as { code?: string }).code).to.equal('23503');
      expect(await count('child')).to.equal(0);
    });

    it('still sends BEGIN for another isolation level', async () => {
      const from = commands.length;
      const rows = await pool.transactionInOneTrip('serializable', [{ text: `SELECT current_setting('transaction_isolation')` }]);
      expect(rows).to.deep.equal([[['serializable']]]);
      expect(since(from)).to.deep.equal(['BEGIN', 'SELECT 1', 'COMMIT']);
    });
  });
});
