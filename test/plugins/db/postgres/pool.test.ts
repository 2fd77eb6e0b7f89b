import { once } from 'node:events';
import net from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import { EngineError } from '../../../../core/errors.js';
import { resolvePgSourceConfiguration } from '../../../../plugins/db/postgres/connection-info.js';
import { APPLICATION_NAME, PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { PG_HOST, PG_USER, createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';
import { rejection } from '../../../helpers/rejection.js';

/** A TCP server on a free port; `onSocket` decides how it misbehaves. */
async function fakeServer(onSocket: (s: net.Socket) => void): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    onSocket(s);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const f = await fakeServer(() => {});
  await f.close();
  return f.port;
}


/** Records the text of every query a pg client sends until `restore` (the real client still sends them). */
function spyOnQueries(): { sent: string[]; restore: () => void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : String((first as { text?: unknown }).text));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return { sent, restore: () => (pg.Client.prototype.query = query) };
}

describe('db/postgres pool', function () {
  this.timeout(30_000);
  let dbName: string;
  let pool: PgSourcePool;

  before(async () => {
    dbName = await createTestDatabase('svc_test_pool');
    await runScript(dbName, 'CREATE TABLE item (id integer PRIMARY KEY, label text NOT NULL)');
    pool = new PgSourcePool(resolvedFor(dbName));
  });

  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  /** Waits (up to 5 s) until the server has no backend `pid` any more: its connection was closed. */
  async function backendGone(pid: number): Promise<void> {
    const count = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]!.n;
    for (let i = 0; i < 50 && (await count()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count(), `backend ${pid}`).to.equal(0);
  }

  describe('queryJsonText', () => {
    it('returns json exactly as PostgreSQL rendered it', async () => {
      expect(await pool.queryJsonText(undefined, `SELECT json_build_object('a', 1, 'b', $1::text)`, ['x'])).to.equal(
        '{"a" : 1, "b" : "x"}',
      );
      expect(await pool.queryJsonText(undefined, `SELECT '{"b":2,  "a":[1,2]}'::jsonb`)).to.equal(
        '{"a": [1, 2], "b": 2}',
      );
      expect(await pool.queryJsonText(undefined, `SELECT '{"keep":   "spacing"}'::json`)).to.equal(
        '{"keep":   "spacing"}',
      );
    });

    it('returns other types unparsed too, and null for SQL NULL or no row', async () => {
      expect(await pool.queryJsonText(undefined, 'SELECT 9007199254740993::int8')).to.equal('9007199254740993');
      expect(await pool.queryJsonText(undefined, `SELECT '2024-01-02'::date`)).to.equal('2024-01-02');
      expect(await pool.queryJsonText(undefined, 'SELECT NULL::json')).to.equal(null);
      expect(await pool.queryJsonText(undefined, 'SELECT 1 WHERE false')).to.equal(null);
    });

    it('leaves the global type parsers alone for ordinary queries', async () => {
      const r = await pool.query<{ n: number; j: { a: number } }>(`SELECT 1::int4 AS n, '{"a":1}'::json AS j`);
      expect(r.rows[0]).to.deep.equal({ n: 1, j: { a: 1 } });
    });

    it('prepares named statements only when the source uses prepared statements', async () => {
      const one = (extra: Record<string, unknown>) => new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 }, ...extra }));
      const prepared = async (p: PgSourcePool): Promise<string[]> =>
        (await p.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);
      const off = one({});
      const on = one({ use_prepared_statements: true });
      try {
        expect(await off.queryJsonText('q_json', 'SELECT json_build_array($1::int)', [1])).to.equal('[1]');
        expect(await prepared(off)).to.deep.equal([]);
        expect(await on.queryJsonText('q_json', 'SELECT json_build_array($1::int)', [2])).to.equal('[2]');
        expect(await on.queryJsonText('q_json', 'SELECT json_build_array($1::int)', [3])).to.equal('[3]');
        expect(await prepared(on)).to.deep.equal(['q_json']);
      } finally {
        await off.close();
        await on.close();
      }
    });
  });

  describe('queryPrepared', () => {
    it('prepares once per connection and reuses the statement', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      try {
        for (const v of [1, 2, 3]) {
          const r = await p.queryPrepared<{ x: number }>('add_one', 'SELECT $1::int + 1 AS x', [v]);
          expect(r.rows).to.deep.equal([{ x: v + 1 }]);
        }
        const stats = await p.query<{ name: string; runs: number }>(
          `SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements`,
        );
        expect(stats.rows).to.deep.equal([{ name: 'add_one', runs: 3 }]);
      } finally {
        await p.close();
      }
    });

    it('passes statement errors through untouched', async () => {
      const e = await rejection(pool.queryPrepared('bad_stmt', 'SELECT * FROM no_such_table'));
      expect(e).not.to.be.instanceOf(EngineError);
      expect((e as { code?: string }).code).to.equal('42P01');
    });
  });

  describe('withTransaction', () => {
    beforeEach(() => pool.query('TRUNCATE item'));

    it('commits what fn did and returns its result', async () => {
      const r = await pool.withTransaction('read-committed', false, async (tx) => {
        await tx.query('INSERT INTO item VALUES ($1, $2)', [1, 'a']);
        return tx.queryJsonText(undefined, 'SELECT json_agg(label) FROM item');
      });
      expect(r).to.equal('["a"]');
      expect((await pool.query('SELECT id FROM item')).rows).to.deep.equal([{ id: 1 }]);
    });

    it('rolls back when fn throws, and rethrows the same error', async () => {
      const boom = new Error('boom');
      const e = await rejection(
        pool.withTransaction('read-committed', false, async (tx) => {
          await tx.query('INSERT INTO item VALUES (2, $1)', ['b']);
          throw boom;
        }),
      );
      expect(e).to.equal(boom);
      expect((await pool.query('SELECT count(*)::int AS n FROM item')).rows[0]).to.deep.equal({ n: 0 });
    });

    it('rolls back after a failed statement and leaves the connection usable', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      try {
        const e = await rejection(
          p.withTransaction('serializable', false, async (tx) => {
            await tx.query(`INSERT INTO item VALUES (3, 'c')`);
            await tx.query(`INSERT INTO item VALUES (3, 'duplicate')`);
          }),
        );
        expect((e as { code?: string }).code).to.equal('23505');
        expect((await p.query('SELECT count(*)::int AS n FROM item')).rows[0]).to.deep.equal({ n: 0 });
      } finally {
        await p.close();
      }
    });

    it('sets the isolation level and refuses writes when read-only', async () => {
      const iso = await pool.withTransaction('repeatable-read', true, async (tx) => {
        const r = await tx.query<{ i: string; ro: string }>(
          `SELECT current_setting('transaction_isolation') AS i, current_setting('transaction_read_only') AS ro`,
        );
        return r.rows[0];
      });
      expect(iso).to.deep.equal({ i: 'repeatable read', ro: 'on' });
      const e = await rejection(
        pool.withTransaction('read-committed', true, (tx) => tx.query(`INSERT INTO item VALUES (4, 'd')`)),
      );
      expect((e as { code?: string }).code).to.equal('25006');
    });

    it('past its deadline: cancels the statement, answers time-limit-exceeded, and closes the connection instead of sending ROLLBACK', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      const spy = spyOnQueries();
      let pid = 0;
      try {
        const started = Date.now();
        const e = await rejection(
          p.withTransaction(
            'read-committed',
            false,
            async (tx) => {
              pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
              await tx.query(`INSERT INTO item VALUES (5, 'e')`);
              await tx.query('SELECT pg_sleep(30)');
            },
            Date.now() + 300,
          ),
        );
        expect((e as EngineError).code).to.equal('time-limit-exceeded');
        expect(Date.now() - started).to.be.below(5000);
      } finally {
        spy.restore();
      }
      try {
        expect(spy.sent).to.include('SELECT pg_sleep(30)');
        expect(spy.sent).to.not.include('ROLLBACK');
        // Closing the connection ended the transaction: the insert is gone, and so is the backend.
        expect((await pool.query('SELECT count(*)::int AS n FROM item')).rows[0]).to.deep.equal({ n: 0 });
        await backendGone(pid);
        // The pool opens a fresh connection for the next transaction.
        expect(await p.withTransaction('read-committed', true, (tx) => tx.queryJsonText(undefined, 'SELECT to_json(1)'))).to.equal('1');
      } finally {
        await p.close();
      }
    });

    it('gives up waiting for a connection at the deadline, and the connection handed over later goes back to the pool', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      const callers: Array<[string, (deadline: number) => Promise<unknown>]> = [
        ['queryJsonText', (d) => p.queryJsonText(undefined, 'SELECT to_json(1)', [], d)],
        ['withTransaction', (d) => p.withTransaction('read-committed', false, (tx) => tx.query('SELECT 1'), d)],
        ['transactionInOneTrip', (d) => p.transactionInOneTrip('read-committed', [{ text: 'SELECT 1' }], d)],
      ];
      try {
        for (const [name, call] of callers) {
          // The pool's only connection stays busy for a second; nothing else frees it.
          const busy = p.query('SELECT pg_sleep(1)');
          await new Promise((r) => setTimeout(r, 100));
          const started = Date.now();
          const e = await rejection(call(Date.now() + 300));
          expect((e as EngineError).code, name).to.equal('time-limit-exceeded');
          expect(Date.now() - started, name).to.be.below(800);
          await busy;
          // With one connection, this would wait for ever had the late hand-over not been given back.
          expect(await p.queryJsonText(undefined, 'SELECT to_json(2)'), name).to.equal('2');
        }
        // A free connection is taken under a deadline as before.
        expect(await p.queryJsonText(undefined, 'SELECT to_json(3)', [], Date.now() + 5000)).to.equal('3');
      } finally {
        await p.close();
      }
    });

    it('in one round trip, past its deadline: time-limit-exceeded, nothing written, no ROLLBACK', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      const spy = spyOnQueries();
      try {
        // Not the connection's default isolation: an explicit BEGIN, which an error leaves open.
        const e = await rejection(
          p.transactionInOneTrip('serializable', [{ text: `INSERT INTO item VALUES (6, 'f')` }, { text: 'SELECT pg_sleep(30)' }], Date.now() + 300),
        );
        expect((e as EngineError).code).to.equal('time-limit-exceeded');
      } finally {
        spy.restore();
      }
      try {
        expect(spy.sent).to.not.include('ROLLBACK');
        expect((await pool.query('SELECT count(*)::int AS n FROM item')).rows[0]).to.deep.equal({ n: 0 });
        expect(await p.transactionInOneTrip('read-committed', [{ text: 'SELECT 1::text' }])).to.deep.equal([[['1']]]);
      } finally {
        await p.close();
      }
    });

    it('refuses use of the handle after the transaction ended', async () => {
      let leaked: { query: (t: string) => Promise<unknown> } | undefined;
      await pool.withTransaction('read-committed', false, async (tx) => {
        leaked = tx;
      });
      expect(() => leaked!.query('SELECT 1')).to.throw(/after its transaction ended/);
    });
  });

  describe('connection', () => {
    it('names itself to the server', async () => {
      const r = await pool.query<{ a: string }>(`SELECT current_setting('application_name') AS a`);
      expect(r.rows[0]!.a).to.equal(APPLICATION_NAME);
    });

    it('turns connection failures into connection-not-established without leaking the password', async () => {
      const port = await closedPort();
      const bad = new PgSourcePool(
        resolvePgSourceConfiguration(
          { connection_info: { database_url: `postgres://${PG_USER}:Sup3rSecret@${PG_HOST}:${port}/x` } },
          {},
        ),
      );
      try {
        const e = await rejection(bad.query('SELECT 1'));
        expect(e).to.be.instanceOf(EngineError);
        const ee = e as EngineError;
        expect(ee.code).to.equal('connection-not-established');
        expect(ee.status).to.equal(400);
        expect(ee.message).to.match(/^connection error: .*ECONNREFUSED/);
        expect(JSON.stringify({ m: ee.message, i: ee.internal })).not.to.contain('Sup3rSecret');
        expect(ee.internal).to.deep.equal({ code: 'ECONNREFUSED' });
      } finally {
        await bad.close();
      }
    });

    it('reports a missing database as a connection error naming it', async () => {
      const bad = new PgSourcePool(resolvedFor('svc_test_no_such_db_xyz', { pool_settings: { retries: 3 } }));
      try {
        const e = (await rejection(bad.query('SELECT 1'))) as EngineError;
        expect(e.code).to.equal('connection-not-established');
        expect(e.message).to.contain('svc_test_no_such_db_xyz');
        expect(e.internal).to.deep.include({ code: '3D000' });
      } finally {
        await bad.close();
      }
    });

    it('retries a failed connection `retries` times', async () => {
      let attempts = 0;
      const server = await fakeServer((s) => {
        attempts++;
        s.destroy();
      });
      const bad = new PgSourcePool(resolvedFor('x', { pool_settings: { retries: 2 } }, server.port));
      try {
        const e = (await rejection(bad.query('SELECT 1'))) as EngineError;
        expect(e.code).to.equal('connection-not-established');
        expect(attempts).to.equal(3);
      } finally {
        await bad.close();
        await server.close();
      }
    });

    it('gives up waiting for a busy pool after pool_timeout', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1, pool_timeout: 1 } }));
      try {
        const slow = p.query('SELECT pg_sleep(1.5)');
        const e = (await rejection(p.query('SELECT 1'))) as EngineError;
        expect(e.code).to.equal('connection-not-established');
        expect(e.message).to.contain('timeout');
        await slow;
      } finally {
        await p.close();
      }
    });

    it('close() is idempotent', async () => {
      const p = new PgSourcePool(resolvedFor(dbName));
      await p.query('SELECT 1');
      await Promise.all([p.close(), p.close()]);
      await p.close();
      const e = (await rejection(p.query('SELECT 1'))) as EngineError;
      expect(e.code).to.equal('connection-not-established');
    });
  });

  describe('healthCheck', () => {
    const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

    it('is OK on a healthy source', async () => {
      const r = await pool.healthCheck(2000);
      expect(r.status).to.equal('OK');
      expect(r.error).to.equal(null);
      expect(r.timestamp).to.match(ISO_UTC);
    });

    it('is ERROR with a message when the server cannot be reached', async () => {
      const bad = new PgSourcePool(resolvedFor('x', {}, await closedPort()));
      try {
        const r = await bad.healthCheck(2000);
        expect(r.status).to.equal('ERROR');
        if (r.status !== 'ERROR') return;
        expect(r.error.message).to.contain('ECONNREFUSED');
        expect(r.error.extra).to.deep.equal({ code: 'ECONNREFUSED' });
        expect(r.timestamp).to.match(ISO_UTC);
      } finally {
        await bad.close();
      }
    });

    it('is FAILED when the check statement itself is wrong', async () => {
      const r = await pool.healthCheck(2000, 'SELECT * FROM no_such_table');
      expect(r).to.deep.include({ status: 'FAILED', error: 'relation "no_such_table" does not exist' });
    });

    it('is TIMEOUT when the server does not answer in time', async () => {
      const server = await fakeServer(() => {});
      const silent = new PgSourcePool(resolvedFor('x', {}, server.port));
      try {
        const started = Date.now();
        const r = await silent.healthCheck(200);
        expect(r).to.deep.include({ status: 'TIMEOUT', error: null });
        expect(Date.now() - started).to.be.lessThan(1500);
      } finally {
        await server.close();
        await silent.close();
      }
    });

    it('is TIMEOUT when the check runs too long, and frees the connection', async () => {
      const p = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
      try {
        const r = await p.healthCheck(200, 'SELECT pg_sleep(5)');
        expect(r).to.deep.include({ status: 'TIMEOUT', error: null });
        // The slot is usable again at once: the timed-out connection was dropped, not awaited.
        const started = Date.now();
        expect((await p.query('SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
        expect(Date.now() - started).to.be.lessThan(2000);
      } finally {
        await p.close();
      }
    });
  });
});
