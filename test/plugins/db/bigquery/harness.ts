/**
 * An engine serving the conformance fixture twice: from PostgreSQL (schema `oracle`, the
 * `default` source) and from the BigQuery kind (dataset `conf`, source `bq`) whose client talks to
 * the REST stand-in. A GraphQL query is asked of both: PostgreSQL's answer is what BigQuery's
 * rows must turn into, so the stand-in answers the BigQuery statement with those rows, and the
 * statement BigQuery received is returned for the test to check word for word.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../../core/engine.js';
import type { ServerConfig } from '../../../../core/sdk/index.js';
import { ARTICLES, AUTHORS } from '../../../conformance/fixture.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../../helpers/engine.js';
import { DATASET, introspectionAnswer } from './fixture.js';
import { answerFor } from './rows.js';
import { startBigQueryStandIn, type BigQueryStandIn, type RecordedQuery, type StandInAnswer } from './stand-in.js';

export const ADMIN = { 'x-svc-admin-secret': 'bq-secret' };
export const SOURCE = 'bq';

export interface Harness {
  engine: Engine;
  store: TestDatabase;
  bq: BigQueryStandIn;
  meta(body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  ok(body: unknown): Promise<void>;
  /** Answers the next BigQuery statements with `fn` (introspection is always answered from the fixture). */
  answer(fn: (q: RecordedQuery) => StandInAnswer): void;
  close(): Promise<void>;
}

export type Body = { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> };

export async function startHarness(name: string, config: Partial<ServerConfig> = {}): Promise<Harness> {
  const bq = await startBigQueryStandIn();
  const store = await createTestDatabase(name);
  await store.sql(`CREATE SCHEMA oracle;
    CREATE TABLE oracle.author (id int PRIMARY KEY, name varchar(50) NOT NULL, rating int NULL);
    CREATE TABLE oracle.article (id int PRIMARY KEY, title varchar(100) NOT NULL UNIQUE, author_id int NULL REFERENCES oracle.author (id),
      published boolean NOT NULL, views int NULL);`);
  for (const a of AUTHORS) await store.sql('INSERT INTO oracle.author VALUES ($1, $2, $3)', [...a]);
  for (const [i, a] of ARTICLES.entries()) await store.sql('INSERT INTO oracle.article VALUES ($1, $2, $3, $4, $5)', [i + 1, ...a]);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bigquery-'));
  const pluginConfig = join(dir, 'plugins.json');
  const plugins = [
    'db/postgres',
    // The experimental feature reaches the plugin from the server configuration (optionsFromConfig).
    { id: 'db/bigquery', options: { apiEndpoint: bq.apiEndpoint } },
    'auth/admin-secret',
    'metadata/management',
    'metadata/sources',
    'metadata/tables',
    'metadata/relationships',
    'metadata/permissions',
    'metadata/computed-fields',
    'metadata/api-limits',
    'limits/time',
    'api/metadata',
    'api/graphql',
  ];
  writeFileSync(pluginConfig, JSON.stringify({ plugins }));
  const engine = await startTestEngine({ databaseUrl: store.url, pluginConfig, adminSecret: ADMIN['x-svc-admin-secret'], ...config });
  let fn: (q: RecordedQuery) => StandInAnswer = () => ({ error: { status: 400, reason: 'invalidQuery', message: 'no answer set' } });
  bq.answer((q) => introspectionAnswer(q) ?? fn(q));
  const meta = (body: unknown) => metadata(engine, body, ADMIN);
  const h: Harness = {
    engine,
    store,
    bq,
    meta,
    ok: async (body) => {
      const res = await meta(body);
      if ((res.body as { message?: string }).message !== 'success') throw new Error(`${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    },
    answer: (f) => (fn = f),
    close: async () => {
      await engine.close();
      await store.drop();
      await bq.close();
    },
  };
  return h;
}

/** Tracks the fixture on both sources with the conformance suite's relationships and permissions. */
export async function trackFixture(h: Harness): Promise<void> {
  await h.ok({ type: 'wh_add_source', args: { name: SOURCE, configuration: { service_account: h.bq.serviceAccount, project_id: 'standin-project', datasets: [DATASET] } } });
  for (const [prefix, source, schema, key] of [['pg', 'default', 'oracle', 'schema'], ['wh', SOURCE, DATASET, 'dataset']] as const) {
    const table = (name: string) => ({ [key]: schema, name });
    for (const name of ['author', 'article']) await h.ok({ type: `${prefix}_track_table`, args: { source, table: table(name) } });
    await h.ok({ type: `${prefix}_create_object_relationship`, args: { source, table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await h.ok({ type: `${prefix}_create_array_relationship`, args: { source, table: table('author'), name: 'articles', using: { foreign_key_constraint_on: { table: table('article'), column: 'author_id' } } } });
    await h.ok({ type: `${prefix}_create_object_relationship`, args: { source, table: table('article'), name: 'writer', using: { manual_configuration: { remote_table: table('author'), column_mapping: { author_id: 'id' } } } } });
    const perm = (role: string, permission: unknown) => h.ok({ type: `${prefix}_create_select_permission`, args: { source, table: table('article'), role, permission } });
    await perm('user', { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true });
    await perm('capped', { columns: ['id'], filter: {}, limit: 2 });
    await perm('drafts', { columns: ['id'], filter: { published: { _eq: 'X-Svc-Published' } } });
    await h.ok({ type: `${prefix}_create_select_permission`, args: { source, table: table('author'), role: 'user', permission: { columns: ['id', 'name'], filter: {} } } });
  }
}

export interface Asked {
  /** PostgreSQL's answer (the root field's value). */
  expected: unknown;
  /** The BigQuery kind's whole response body. */
  body: Body;
  /** The statement BigQuery received. */
  statement: RecordedQuery | undefined;
}

/**
 * Asks `query` (root fields written `ROOT_article`) of PostgreSQL, then of BigQuery with
 * PostgreSQL's answer as the stand-in's rows.
 */
export async function askBoth(h: Harness, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = ADMIN): Promise<Asked> {
  const pg = (await graphql(h.engine, query.replace(/ROOT_/g, 'oracle_'), variables, headers)).body as Body;
  if (pg.errors) throw new Error(`PostgreSQL refused ${query}: ${JSON.stringify(pg.errors)}`);
  const expected = Object.values(pg.data!)[0];
  const before = h.bq.queries.length;
  h.answer(() => answerFor(expected));
  const body = (await graphql(h.engine, query.replace(/ROOT_/g, `${DATASET}_`), variables, headers)).body as Body;
  return { expected, body, statement: h.bq.queries.slice(before).at(-1) };
}
