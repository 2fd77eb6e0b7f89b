/**
 * The conformance suite against the citus kind (`dist_`).
 *
 * Emulated (always): plain PostgreSQL with the Citus catalog emulated in the schema
 * `citus_emulated` (test/helpers/citus-catalog.ts), in two layouts:
 *   - reference: author and article are reference tables, which is what real Citus accepts for
 *     the suite's DDL (article's unique keys do not contain author_id, so it cannot be
 *     distributed by it);
 *   - distributed: author distributed by id, article by author_id in the same colocation group,
 *     so every relationship of the suite is one between colocated distributed tables joined on
 *     their distribution columns (emulation only: real Citus refuses this DDL).
 * Real (when SVC_TEST_CITUS_URL names a Citus database): the reference layout in a schema of its
 * own, read from the real `pg_catalog.pg_dist_partition`.
 */
import pg from 'pg';
import { CITUS_CATALOG_EMULATION, EMULATED_CATALOG_SCHEMA, placeTable, type Placement } from '../helpers/citus-catalog.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ARTICLES, AUTHORS } from './fixture.js';
import { conformanceSuite } from './suite.js';

const OPERATORS = ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_nregex', '_iregex', '_niregex'];
const CAPABILITIES = { distinctOn: true, mutations: true, onConflict: true, operators: OPERATORS, aggregatePredicates: ['bool_and', 'bool_or', 'count'] };

type Sql = (text: string, values?: unknown[]) => Promise<unknown>;

/** The suite's fixture in `schema`, each table then placed by the Citus functions of `catalogSchema`. */
async function createFixture(sql: Sql, schema: string, catalogSchema: string, placements: { author: Placement; article: Placement }): Promise<void> {
  const s = `"${schema}"`;
  await sql(`
    CREATE TABLE ${s}.author (id int PRIMARY KEY, name varchar(50) NOT NULL, rating int);
    CREATE TABLE ${s}.article (id serial PRIMARY KEY, title varchar(100) NOT NULL CONSTRAINT article_title_key UNIQUE,
      author_id int REFERENCES ${s}.author(id), published boolean NOT NULL, views int);`);
  // Referenced before referencing, as Citus wants for foreign keys.
  await sql(placeTable(catalogSchema, `${schema}.author`, placements.author));
  await sql(placeTable(catalogSchema, `${schema}.article`, placements.article));
  for (const a of AUTHORS) await sql(`INSERT INTO ${s}.author VALUES ($1, $2, $3)`, [...a]);
  for (const a of ARTICLES) await sql(`INSERT INTO ${s}.article (title, author_id, published, views) VALUES ($1, $2, $3, $4)`, [...a]);
}

function emulated(name: string, placements: { author: Placement; article: Placement }): void {
  let db: TestDatabase | undefined;
  conformanceSuite({
    name,
    prefix: 'dist',
    plugin: 'db/citus',
    pluginOptions: { catalogSchema: EMULATED_CATALOG_SCHEMA },
    titleConstraint: 'article_title_key',
    capabilities: CAPABILITIES,
    async setup() {
      db = await createTestDatabase('citus_conf', CITUS_CATALOG_EMULATION);
      await createFixture((text, values) => db!.sql(text, values), 'public', EMULATED_CATALOG_SCHEMA, placements);
      return { configuration: { connection_info: { database_url: db.url, pool_settings: { max_connections: 5 } } }, schema: 'public' };
    },
    async teardown() {
      await db?.drop();
    },
  });
}

emulated('citus, emulated catalog, reference tables', { author: { kind: 'reference' }, article: { kind: 'reference' } });
emulated('citus, emulated catalog, colocated distributed tables', {
  author: { kind: 'distributed', column: 'id' },
  article: { kind: 'distributed', column: 'author_id', colocateWith: 'author' },
});

const REAL_URL = process.env['SVC_TEST_CITUS_URL'];
const REAL_SCHEMA = 'svc_citus_conformance';

async function onReal(fn: (sql: Sql) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: REAL_URL });
  await client.connect();
  try {
    await fn((text, values) => client.query(text, values));
  } finally {
    await client.end();
  }
}

if (REAL_URL) {
  conformanceSuite({
    name: 'citus, real server (SVC_TEST_CITUS_URL), reference tables',
    prefix: 'dist',
    plugin: 'db/citus',
    titleConstraint: 'article_title_key',
    capabilities: CAPABILITIES,
    async setup() {
      await onReal(async (sql) => {
        await sql(`DROP SCHEMA IF EXISTS ${REAL_SCHEMA} CASCADE`);
        await sql(`CREATE SCHEMA ${REAL_SCHEMA}`);
        await createFixture(sql, REAL_SCHEMA, 'pg_catalog', { author: { kind: 'reference' }, article: { kind: 'reference' } });
      });
      return { configuration: { connection_info: { database_url: REAL_URL, pool_settings: { max_connections: 5 } } }, schema: REAL_SCHEMA };
    },
    async teardown() {
      await onReal((sql) => sql(`DROP SCHEMA IF EXISTS ${REAL_SCHEMA} CASCADE`).then(() => undefined));
    },
  });
} else {
  describe('database kind conformance: citus, real server (integration)', () => {
    it.skip('runs the suite against a real Citus server: skipped, SVC_TEST_CITUS_URL is not set (no Citus server on this machine)', () => undefined);
  });
}
