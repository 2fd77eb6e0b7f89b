/**
 * The conformance suite against the bigquery kind on REAL BigQuery, when credentials are given:
 *
 *   SVC_TEST_BIGQUERY_SERVICE_ACCOUNT   the service account key file's JSON (or SVC_TEST_BIGQUERY_SERVICE_ACCOUNT_FILE: its path)
 *   SVC_TEST_BIGQUERY_PROJECT_ID        the project the jobs run in
 *   SVC_TEST_BIGQUERY_LOCATION          optional: where the fixture dataset is created (default US)
 *
 * It creates a dataset of its own (`svc_conformance_<random>`), with the fixture's tables (keys
 * declared NOT ENFORCED, ids written out: BigQuery has no auto-increment) and rows, and drops it
 * afterwards. Without the variables the suite is skipped, and says so.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ARTICLES, AUTHORS } from './fixture.js';
import { conformanceSuite } from './suite.js';

const FILE = process.env['SVC_TEST_BIGQUERY_SERVICE_ACCOUNT_FILE'];
const KEY_JSON = process.env['SVC_TEST_BIGQUERY_SERVICE_ACCOUNT'] ?? (FILE ? readFileSync(FILE, 'utf8') : undefined);
const PROJECT = process.env['SVC_TEST_BIGQUERY_PROJECT_ID'];
const LOCATION = process.env['SVC_TEST_BIGQUERY_LOCATION'] ?? 'US';
const DATASET = `svc_conformance_${randomBytes(4).toString('hex')}`;

async function run(sql: string): Promise<void> {
  const { BigQuery } = await import('@google-cloud/bigquery');
  const key = JSON.parse(KEY_JSON!) as { client_email: string; private_key: string };
  const client = new BigQuery({ projectId: PROJECT!, credentials: { client_email: key.client_email, private_key: key.private_key }, location: LOCATION });
  await client.query({ query: sql, location: LOCATION });
}

if (KEY_JSON === undefined || PROJECT === undefined) {
  describe('database kind conformance: bigquery (integration)', () => {
    it.skip('runs only against real BigQuery: set SVC_TEST_BIGQUERY_SERVICE_ACCOUNT (or _FILE) and SVC_TEST_BIGQUERY_PROJECT_ID');
  });
} else {
  conformanceSuite({
    name: 'bigquery',
    prefix: 'wh',
    plugin: 'db/bigquery',
    titleConstraint: 'none',
    capabilities: {
      distinctOn: false,
      mutations: false,
      onConflict: false,
      operators: ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex'],
      aggregatePredicates: ['bool_and', 'bool_or', 'count'],
    },
    async setup() {
      const ds = '`' + DATASET + '`';
      await run(`CREATE SCHEMA ${ds} OPTIONS (location = '${LOCATION}')`);
      await run(`CREATE TABLE ${ds}.author (id INT64 NOT NULL, name STRING(50) NOT NULL, rating INT64, PRIMARY KEY (id) NOT ENFORCED)`);
      await run(`CREATE TABLE ${ds}.article (id INT64 NOT NULL, title STRING(100) NOT NULL, author_id INT64, published BOOL NOT NULL, views INT64,
        PRIMARY KEY (id) NOT ENFORCED, FOREIGN KEY (author_id) REFERENCES ${ds}.author (id) NOT ENFORCED)`);
      // The fixture's own constants, written as literals (NULLs need no parameter types this way).
      const lit = (v: string | number | boolean | null): string => (v === null ? 'NULL' : typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v));
      await run(`INSERT INTO ${ds}.author (id, name, rating) VALUES ${AUTHORS.map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`);
      await run(`INSERT INTO ${ds}.article (id, title, author_id, published, views) VALUES ${ARTICLES.map((r, i) => `(${[i + 1, ...r].map(lit).join(', ')})`).join(', ')}`);
      return { configuration: { service_account: KEY_JSON, project_id: PROJECT, datasets: [DATASET] }, schema: DATASET };
    },
    async teardown() {
      await run(`DROP SCHEMA IF EXISTS \`${DATASET}\` CASCADE`);
    },
  });
}
