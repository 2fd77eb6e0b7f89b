/**
 * JIT on source connections (--pg-jit, plugins/db/postgres/pool.ts). PostgreSQL's LLVM
 * compilation of a deep boolean tree ignores statement_timeout and cancels; the coverage fuzzer
 * found an `update_item` whose `where` nests 26 `parent` relationships that held a database core
 * for 53 s and went past --pg-statement-timeout. The database here compiles every statement
 * (`jit_above_cost` and the optimise and inline thresholds at 0), as a big table would make it.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, asUser, trackItems } from '../../helpers/hardening.js';

const STATEMENT_TIMEOUT_S = 5;

/**
 * The `where` the coverage fuzzer found (CI, 2026-11-29): 26 `parent` relationships under `_not`,
 * `_and` and `_or`, 27 EXISTS subplans once planned. With JIT, LLVM compiled it for 53 s.
 */
const FOUND_WHERE = [
  '{_or: [{_not: {_and: [{_not: {_not: {parent: {_or: [{_or: [{_not: {_and: [{_or: [{parent: {_or: ',
  '[{_and: [{_not: {_and: [{_and: [{_not: {_and: [{_or: [{_and: [{_not: {_and: [{_not: {_and: [{_no',
  't: {parent: {_and: [{_or: [{parent: {_or: [{_or: [{parent: {parent: {_not: {_or: [{_or: [{_or: [',
  '{_or: [{_and: [{_and: [{_and: [{_and: [{_or: [{_not: {_or: [{_and: [{parent: {_and: [{parent: {_',
  'and: [{_not: {parent: {_and: [{_not: {_or: [{_not: {_or: [{parent: {parent: {parent: {_and: [{pa',
  'rent: {_not: {_and: [{_not: {_and: [{parent: {parent: {_not: {_not: {_and: [{_and: [{_not: {_and',
  ': [{_and: [{_or: [{parent: {_or: [{_and: [{_not: {_not: {_and: [{_not: {_not: {_not: {parent: {p',
  'arent: {_and: [{parent: {_or: [{_not: {_and: [{_not: {_or: [{_not: {parent: {_or: [{_not: {_not:',
  ' {parent: {parent: {_and: [{parent: {parent: {_and: [{parent: {_or: [{parent: {}}]}}]}}}]}}}}}]}',
  '}}]}}]}}]}}]}}}}}}]}}}]}]}}]}]}]}}]}]}}}}}]}}]}}}]}}}}]}}]}}]}}}]}}]}}]}]}}]}]}]}]}]}]}]}]}]}}}}',
  ']}]}}]}]}}}]}}]}}]}]}]}}]}]}}]}]}}]}]}}]}]}}}}]}}]}',
].join('');

async function showJit(engine: Engine): Promise<string> {
  const res = await call(engine, '/v2/query', { type: 'run_sql', args: { sql: 'SHOW jit' } }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return (res.body as { result: string[][] }).result[1]![0]!;
}

describe('JIT on source connections (--pg-jit)', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let jitAvailable = false;

  before(async () => {
    db = await createTestDatabase('harden_source_jit');
    await db.sql(`ALTER DATABASE ${db.name} SET jit = on;
      ALTER DATABASE ${db.name} SET jit_above_cost = 0;
      ALTER DATABASE ${db.name} SET jit_optimize_above_cost = 0;
      ALTER DATABASE ${db.name} SET jit_inline_above_cost = 0;`);
    jitAvailable = (await db.sql('SELECT pg_jit_available() AS a')).rows[0].a as boolean;
  });

  after(async () => {
    await db?.drop();
  });

  describe('by default', () => {
    let engine: Engine;
    before(async () => {
      engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, schemaSyncPollInterval: 0, pgStatementTimeout: STATEMENT_TIMEOUT_S });
      await trackItems(engine, db);
    });
    after(async () => {
      await engine?.close();
    });

    it('turns JIT off on the source connections, whatever the database says', async () => {
      expect(await showJit(engine)).to.equal('off');
    });

    it("answers the fuzzer's mutation within the statement timeout", async function () {
      if (!jitAvailable) this.skip();
      const query = `mutation { update_item(where: ${FOUND_WHERE}, _set: {name: "renamed"}) { affected_rows returning { id owner_id } } }`;
      const res = await call(engine, '/v1/graphql', { query }, asUser(2));
      // With JIT the statement compiled past the timeout, and the engine's stall guard closed the
      // connection (`statement-timeout`, "the connection was closed").
      expect(res.body, JSON.stringify(res.body)).to.not.have.property('errors');
      const { affected_rows, returning } = (res.body as { data: { update_item: { affected_rows: number; returning: Array<{ owner_id: number }> } } }).data.update_item;
      expect(affected_rows).to.be.greaterThan(0);
      expect(returning).to.have.length(affected_rows);
      expect(returning.every((r) => r.owner_id === 2)).to.equal(true);
    });

    it('answers a query with the same where', async function () {
      if (!jitAvailable) this.skip();
      const res = await call(engine, '/v1/graphql', { query: `{ item(where: ${FOUND_WHERE}) { id owner_id } }` }, asUser(2));
      expect(res.body, JSON.stringify(res.body)).to.not.have.property('errors');
      expect((res.body as { data: { item: unknown[] } }).data.item).to.not.be.empty;
    });
  });

  it('leaves JIT to the database with --pg-jit', async () => {
    const engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, schemaSyncPollInterval: 0, pgJit: true });
    try {
      expect(await showJit(engine)).to.equal('on');
    } finally {
      await engine.close();
    }
  });
});
