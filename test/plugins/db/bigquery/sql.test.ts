/**
 * The Standard SQL the BigQuery kind sends for every query of the conformance suite, word for
 * word with its typed parameters, and the response it makes of BigQuery's rows: each query is
 * asked of PostgreSQL over the same fixture, the stand-in answers the BigQuery statement with
 * PostgreSQL's answer in BigQuery's row form, and the two responses must be equal. What this
 * does not prove: that BigQuery computes those rows from that SQL (see the README).
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { ADMIN, askBoth, type Harness, startHarness, trackFixture } from './harness.js';

type Source = [string, Record<string, unknown> | null | undefined, Record<string, string> | undefined];
interface Expected { query: string; sql: string; params: Record<string, unknown> }

const SOURCE_FILE = new URL('./cases-source.json', import.meta.url);
const EXPECTED_FILE = new URL('./cases-sql.json', import.meta.url);
const sources = JSON.parse(readFileSync(SOURCE_FILE, 'utf8')) as Source[];
const RECORD = process.env['SVC_BIGQUERY_RECORD_SQL'] === '1';
const expected: Expected[] = RECORD ? [] : (JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as Expected[]);

describe('db/bigquery: the SQL of every conformance query (stand-in)', function () {
  this.timeout(60000);
  let h: Harness;
  const recorded: Expected[] = [];

  before(async () => {
    h = await startHarness('bigquery_sql');
    await trackFixture(h);
  });
  after(async () => {
    if (RECORD) writeFileSync(EXPECTED_FILE, JSON.stringify(recorded, null, 1) + '\n');
    await h?.close();
  });

  it('has an expected statement for every query', () => {
    if (!RECORD) expect(expected.map((e) => e.query)).to.deep.equal(sources.map((s) => s[0]));
  });

  sources.forEach(([query, variables, headers], i) => {
    it(query, async () => {
      const { expected: pgAnswer, body, statement } = await askBoth(h, query, variables ?? undefined, { ...ADMIN, ...(headers ?? {}) });
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      expect(Object.values(body.data!)[0]).to.deep.equal(pgAnswer);
      expect(statement, 'a statement reached BigQuery').to.not.equal(undefined);
      if (RECORD) recorded.push({ query, sql: statement!.query, params: statement!.params });
      else {
        expect(statement!.query).to.equal(expected[i]!.sql);
        expect(statement!.params).to.deep.equal(expected[i]!.params);
      }
    });
  });
});
