/**
 * Coverage-guided fuzzing of the GraphQL → SQL path against a real PostgreSQL, with V8's block
 * coverage of the engine as the feedback (test/fuzz/coverage/; Jazzer.js cannot run on this
 * machine, docs/security.md says why). The engine runs in this process; each input is a GraphQL
 * request as the admin or as a `user` (who sees only its own `item` rows and never `token`).
 *
 * Properties, on every input: no statement the engine sends is refused by PostgreSQL with a
 * class-42 SQLSTATE (42601 syntax error, unknown column, type mismatch: seen at the driver, for
 * every role); every refusal is a coded error from the expected set (never `unexpected`); the user
 * role never sees another owner's row or the token column; a user's mutation never changes another
 * owner's rows.
 *
 * Bounded in CI (FUZZ_SECONDS, default 30); `npm run fuzz:coverage:long` runs it for 15 minutes and
 * writes the tally to test/fuzz/results/coverage-last-run.json. FUZZ_SEED replays the mutation
 * choices (the coverage feedback makes a replay close, not exact).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, ITEMS_ROWS_SQL, asUser, trackItems } from '../../helpers/hardening.js';
import { checkAnswer, Finding, newTally } from '../../fuzz/oracle.js';
import { createTableSql, generatedTables, refillTableSql, trackTableArgs, type GeneratedTable } from '../../fuzz/generated-schema.js';
import { CoverageMap } from '../../fuzz/coverage/coverage.js';
import { seedCorpus } from '../../fuzz/coverage/corpus.js';
import { fuzz, type FuzzTally } from '../../fuzz/coverage/fuzzer.js';
import { Rng, type FuzzInput } from '../../fuzz/coverage/mutate.js';
import { tapStatementErrors, untapStatementErrors, type StatementError } from '../../fuzz/coverage/sql-tap.js';

const SECONDS = Number(process.env['FUZZ_SECONDS'] ?? 30);
const SEED = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : Date.now() % 2 ** 31;
const REPORT = process.env['FUZZ_REPORT'];
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STATEMENT_TIMEOUT_S = 10;

/**
 * Class-42 SQLSTATEs an input may legitimately cause: an ON CONFLICT target the table cannot use
 * (42P10) or a constraint that does not exist (42704), both reported as `constraint-error` as the
 * reference engine does. Any other class-42 error is a statement the compiler got wrong.
 */
const ALLOWED_42 = new Set(['42P10', '42704']);

describe('coverage-guided fuzzing of GraphQL → SQL (integration)', function () {
  this.timeout(SECONDS * 1000 + 180_000);
  let db: TestDatabase;
  let engine: Engine;
  let tables: GeneratedTable[];
  let tally: FuzzTally | undefined;
  let corpus: FuzzInput[] = [];
  const statementErrors: StatementError[] = [];

  // V8 keeps block counters only in functions compiled after precise coverage started, so it
  // starts before the engine does.
  const coverage = new CoverageMap([`${ROOT}core`, `${ROOT}plugins`]);

  before(async () => {
    await coverage.start();
    db = await createTestDatabase('harden3_covfuzz');
    // The statement timeout is the operator's bound on expensive well-formed queries: the first
    // long run found `where` trees of 40-50 nested relationships whose planning alone takes
    // PostgreSQL seconds to minutes; with it they end as a coded `statement-timeout`.
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, schemaSyncPollInterval: 0, pgStatementTimeout: STATEMENT_TIMEOUT_S });
    await trackItems(engine, db);
    tables = generatedTables(2, SEED);
    for (const t of tables) {
      await db.sql(createTableSql(t));
      const res = await metadata(engine, { type: 'pg_track_table', args: trackTableArgs(t) }, ADMIN);
      expect(res.status, `${JSON.stringify(t)}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
  });

  after(async () => {
    untapStatementErrors();
    await coverage.stop();
    if (tally) {
      const { findings, ...counts } = tally;
      console.log(`      coverage fuzz tally: ${JSON.stringify({ ...counts, findings: findings.length })}`);
      if (REPORT) {
        mkdirSync(dirname(REPORT), { recursive: true });
        writeFileSync(REPORT, JSON.stringify({ ...counts, findings: findings.length, findingDetails: findings }, null, 2));
        writeFileSync(REPORT.replace(/\.json$/, '-corpus.json'), JSON.stringify(corpus, null, 1));
      }
    }
    await direct?.end();
    await engine?.close();
    await db?.drop();
  });

  // One connection of the test's own for the digests and refills (a new one per call would cost
  // more than the fuzzed request).
  let direct: pg.Client | undefined;
  const own = async (): Promise<pg.Client> => {
    if (!direct) {
      direct = new pg.Client({ connectionString: db.url });
      await direct.connect();
    }
    return direct;
  };
  const othersDigest = async (userId: number): Promise<string> =>
    (await (await own()).query(`SELECT md5(coalesce(string_agg(i::text, ',' ORDER BY id), '')) AS d FROM item i WHERE owner_id <> $1`, [userId])).rows[0].d;

  const refill = async (): Promise<void> => {
    await (await own()).query(`TRUNCATE item RESTART IDENTITY; ${ITEMS_ROWS_SQL}; ${tables.map(refillTableSql).join(' ')}`);
  };

  // The property below is only as good as the tap: the engine's reads and one-trip writes send
  // pg submittables, whose errors never reach a promise of Client#query.
  it('sees the database errors of reads and of one-trip mutations at the driver', async () => {
    const seen: StatementError[] = [];
    tapStatementErrors((e) => seen.push(e));
    try {
      const write = await call(engine, '/v1/graphql', { query: 'mutation { insert_item_one(object: {name: "x", parent_id: 999999}) { id } }' }, asUser(1));
      expect(write.body.errors?.[0]?.extensions?.code, JSON.stringify(write.body)).to.equal('constraint-violation');
      const read = await call(engine, '/v1/graphql', { query: '{ item(where: {price: {_eq: "not a number"}}) { id } }' }, asUser(1));
      expect(read.body.errors?.[0]?.extensions?.code, JSON.stringify(read.body)).to.equal('data-exception');
    } finally {
      untapStatementErrors();
    }
    expect(seen.map((e) => e.code)).to.deep.equal(['23503', '22P02']);
    expect(seen[0]!.statement).to.include('INSERT INTO');
    expect(seen[1]!.statement).to.include('SELECT');
  });

  it(`finds nothing in ${SECONDS} s of coverage-guided inputs`, async () => {
    const oracle = newTally();
    let digestBefore: string | undefined;
    tapStatementErrors((e) => statementErrors.push(e));
    // Start-up and metadata work are the baseline, not discoveries.
    await coverage.take();
    const isMutation = (q: string): boolean => /^\s*mutation\b/.test(q);

    const result = await fuzz(
      {
        async run(input) {
          statementErrors.length = 0;
          digestBefore = typeof input.as === 'number' && isMutation(input.query) ? await othersDigest(input.as) : undefined;
          const res = await fetch(`${engine.url}/v1/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(input.as === 'admin' ? ADMIN : asUser(input.as)) },
            body: JSON.stringify({ query: input.query, variables: input.variables }),
            // Past the statement timeout and its 1 s grace, no answer is a finding (a hang).
            signal: AbortSignal.timeout((STATEMENT_TIMEOUT_S + 10) * 1000),
          });
          return res.text();
        },
        async check(input, answer) {
          for (const e of statementErrors) {
            oracle.sqlStates[e.code] = (oracle.sqlStates[e.code] ?? 0) + 1;
            if (e.code.startsWith('42') && !ALLOWED_42.has(e.code)) {
              return `PostgreSQL refused a statement with SQLSTATE ${e.code} (${e.message})\n  statement: ${e.statement.slice(0, 1500)}`;
            }
          }
          try {
            // The SQLSTATE tally comes from the driver tap above; the oracle reads the rest.
            const states = { ...oracle.sqlStates };
            checkAnswer(answer, oracle, { userId: typeof input.as === 'number' ? input.as : undefined, request: '' });
            oracle.sqlStates = states;
          } catch (e) {
            if (e instanceof Finding) return e.message.split('\n')[0];
            throw e;
          }
          if (isMutation(input.query)) {
            if (digestBefore !== undefined && typeof input.as === 'number' && (await othersDigest(input.as)) !== digestBefore) {
              return `a mutation as user ${input.as} changed another owner's rows`;
            }
            await refill();
          }
          return undefined;
        },
        deep: (answer) => !answer.includes('"code":"validation-failed"') && !answer.includes('"code":"parse-failed"'),
      },
      coverage,
      seedCorpus(tables, SEED),
      new Rng(SEED),
      { seconds: SECONDS, seed: SEED },
    );
    console.log(`      time reading coverage: ${Math.round(coverage.takeMs)} ms`);
    await coverage.stop();
    untapStatementErrors();
    corpus = result.corpus;
    tally = { ...result.tally, answered: oracle.answered, refusals: oracle.refusals, sqlStates: oracle.sqlStates };

    expect(tally.findings, tally.findings.join('\n\n')).to.deep.equal([]);
    expect(tally.kept, 'inputs that reached new engine blocks').to.be.greaterThan(0);
    // Alone this is about 2,500; within the whole suite, engine functions other tests compiled
    // before coverage started count only as whole functions (V8 instruments blocks at compile).
    expect(tally.blocks, 'engine blocks reached').to.be.greaterThan(200);
    const res = await call(engine, '/v1/graphql', { query: '{ item_by_pk(id: 1) { id } }' }, ADMIN);
    expect(res.body).to.deep.equal({ data: { item_by_pk: { id: 1 } } });
  });
});
