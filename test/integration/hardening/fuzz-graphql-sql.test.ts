/**
 * Property-based fuzzing of the GraphQL → SQL path against a real PostgreSQL (fast-check).
 * Bounded for CI; `npm run fuzz:long` runs it with FUZZ_RUNS=3000 and writes the tally that
 * docs/security.md reports. FUZZ_SEED replays a run.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, asUser, trackItems } from '../../helpers/hardening.js';
import { mutationCase, mutationRequest, selectCase, selectRequest } from '../../fuzz/graphql-inputs.js';
import { checkAnswer, newTally, type Tally } from '../../fuzz/oracle.js';
import { createTableSql, generatedQuery, generatedTables, trackTableArgs, type GeneratedTable } from '../../fuzz/generated-schema.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 40);
const SEED = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : Date.now() % 2 ** 31;
const REPORT = process.env['FUZZ_REPORT'];

describe('fuzzing GraphQL → SQL with fast-check (integration)', function () {
  this.timeout(Math.max(120_000, RUNS * 2_000));
  let db: TestDatabase;
  let engine: Engine;
  let tables: GeneratedTable[];
  const tally: Tally = newTally();
  const started = Date.now();

  before(async () => {
    db = await createTestDatabase('fuzz');
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET });
    await trackItems(engine, db);
    tables = generatedTables(2, SEED);
    for (const t of tables) {
      await db.sql(createTableSql(t));
      const res = await metadata(engine, { type: 'pg_track_table', args: trackTableArgs(t) }, ADMIN);
      expect(res.status, `${JSON.stringify(t)}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
  });

  after(async () => {
    const summary = { seed: SEED, runsPerProperty: RUNS, seconds: Math.round((Date.now() - started) / 1000), ...tally, findings: tally.findings.length };
    console.log(`      fuzz tally: ${JSON.stringify(summary)}`);
    if (REPORT) {
      mkdirSync(dirname(REPORT), { recursive: true });
      writeFileSync(REPORT, JSON.stringify({ ...summary, findingDetails: tally.findings }, null, 2));
    }
    await engine?.close();
    await db?.drop();
  });

  const post = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<string> => {
    const res = await fetch(`${engine.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return res.text();
  };

  /** A digest of the rows other users own: a user's mutation must never change it. */
  const othersDigest = async (userId: number): Promise<string> =>
    (await db.sql(`SELECT md5(coalesce(string_agg(i::text, ',' ORDER BY id), '')) AS d FROM item i WHERE owner_id <> $1`, [userId])).rows[0].d;

  const options = (offset: number): fc.Parameters<unknown> => ({ numRuns: RUNS, seed: SEED + offset, endOnFailure: true });

  it('admin selects: every refusal is coded, no statement the database cannot run', async () => {
    await fc.assert(
      fc.asyncProperty(selectCase(true), async (c) => {
        const req = selectRequest(c);
        checkAnswer(await post(req.query, req.variables, ADMIN), tally, { request: JSON.stringify(req) });
      }),
      options(1),
    );
  });

  it('user selects: only the user’s rows, never the token column, refusals coded', async () => {
    await fc.assert(
      fc.asyncProperty(selectCase(true), fc.integer({ min: 1, max: 3 }), async (c, userId) => {
        const req = selectRequest(c);
        const text = await post(req.query, req.variables, asUser(userId));
        checkAnswer(text, tally, { userId, request: JSON.stringify(req) });
        if (c.selectForbidden) expect(JSON.parse(text).errors?.[0]?.extensions?.code, text).to.equal('validation-failed');
      }),
      options(2),
    );
  });

  it('user mutations: never change another user’s rows, refusals coded', async () => {
    await fc.assert(
      fc.asyncProperty(mutationCase, fc.integer({ min: 1, max: 3 }), async (c, userId) => {
        const before = await othersDigest(userId);
        const req = mutationRequest(c);
        checkAnswer(await post(req.query, req.variables, asUser(userId)), tally, { userId, request: JSON.stringify(req) });
        expect(await othersDigest(userId), JSON.stringify(req)).to.equal(before);
      }),
      options(3),
    );
  });

  it('generated schemas with hostile names: queries compile and refusals are coded', async () => {
    await fc.assert(
      fc.asyncProperty(generatedQuery(tables), async (query) => {
        checkAnswer(await post(query, {}, ADMIN), tally, { request: query });
      }),
      options(4),
    );
  });

  it('found nothing, and the engine still serves', async () => {
    expect(tally.findings).to.deep.equal([]);
    expect(tally.tried).to.be.greaterThan(RUNS * 3);
    const res = await call(engine, '/v1/graphql', { query: '{ item_by_pk(id: 1) { id } }' }, ADMIN);
    expect(res.body).to.deep.equal({ data: { item_by_pk: { id: 1 } } });
  });
});
