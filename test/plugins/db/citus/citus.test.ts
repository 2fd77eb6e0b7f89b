/**
 * The citus kind over HTTP, on plain PostgreSQL with the Citus catalog emulated
 * (test/helpers/citus-catalog.ts): which `dist_` operations exist, the join rules between local,
 * reference and distributed tables at relationship creation (the reference's `not-supported`
 * errors) and on replace_metadata (inconsistent objects), the SQL it sends, functions, run_sql
 * and remote relationships, and a database without the Citus catalog.
 *
 *   company   distributed by id            country  reference
 *   campaign  distributed by company_id,   note     local (a plain table)
 *             colocated with company       tag      local (a Citus-managed local table)
 *   ad        distributed by id, in a colocation group of its own
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../../core/engine.js';
import { CITUS_CATALOG_EMULATION, EMULATED_CATALOG_SCHEMA, placeTable } from '../../../helpers/citus-catalog.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { call, graphql, metadata, startTestEngine } from '../../../helpers/engine.js';
import { REPO_ROOT } from '../../../helpers/process.js';
import { Received, transportClient } from '../../../integration/subscriptions/fixture.js';

const ADMIN = { 'x-svc-admin-secret': 'citus' };
const SOURCE = 'dist';
const S = EMULATED_CATALOG_SCHEMA;

const FIXTURE = `
  CREATE TABLE country (code text PRIMARY KEY, name text NOT NULL);
  CREATE TABLE status (value text PRIMARY KEY, comment text);
  INSERT INTO status VALUES ('active', 'Running'), ('closed', NULL);
  CREATE TABLE company (id int PRIMARY KEY, name text NOT NULL, country_code text REFERENCES country(code));
  CREATE TABLE campaign (company_id int NOT NULL REFERENCES company(id), id int NOT NULL, name text NOT NULL, PRIMARY KEY (company_id, id));
  CREATE TABLE ad (id int PRIMARY KEY, company_id int NOT NULL, title text NOT NULL, status text REFERENCES status(value));
  -- note.company_id references a distributed table, which Citus would refuse; plain PostgreSQL
  -- keeps it, so the rules are seen refusing relationships through such a key.
  CREATE TABLE note (id int PRIMARY KEY, company_id int REFERENCES company(id), country_code text REFERENCES country(code), body text);
  CREATE TABLE tag (id int PRIMARY KEY, label text NOT NULL, note_id int);
  ${placeTable(S, 'country', { kind: 'reference' })};
  ${placeTable(S, 'status', { kind: 'reference' })};
  ${placeTable(S, 'company', { kind: 'distributed', column: 'id' })};
  ${placeTable(S, 'campaign', { kind: 'distributed', column: 'company_id', colocateWith: 'company' })};
  ${placeTable(S, 'ad', { kind: 'distributed', column: 'id', colocateWith: 'none' })};
  ${placeTable(S, 'tag', { kind: 'citus-local' })};
  INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan');
  INSERT INTO company VALUES (1, 'Acme', 'FR'), (2, 'Kaisha', 'JP');
  INSERT INTO campaign VALUES (1, 1, 'Spring'), (1, 2, 'Autumn'), (2, 1, 'Launch');
  INSERT INTO ad VALUES (1, 1, 'Big', 'active'), (2, 2, 'Small', 'closed');
  INSERT INTO note VALUES (1, 1, 'FR', 'hello');
  INSERT INTO tag VALUES (1, 'first', 1);
  CREATE FUNCTION companies_in(code text) RETURNS SETOF company LANGUAGE sql STABLE AS $$ SELECT * FROM company WHERE country_code = code $$;
`;

type Body = Record<string, unknown>;

describe('db/citus over HTTP, on the emulated Citus catalog (integration)', function () {
  this.timeout(60000);
  let engine: Engine;
  let store: TestDatabase;
  let db: TestDatabase;
  let plain: TestDatabase;

  const meta = (body: unknown) => metadata<Body>(engine, body, ADMIN);
  const ok = async (body: unknown): Promise<void> => {
    const res = await meta(body);
    expect(res.body, JSON.stringify(body)).to.deep.include({ message: 'success' });
  };
  const t = (name: string) => ({ schema: 'public', name });
  const rel = (kind: 'object' | 'array', table: string, name: string, using: unknown) => ({
    type: `dist_create_${kind}_relationship`,
    args: { source: SOURCE, table: t(table), name, using },
  });
  const fkOn = (table: string, column: string) => ({ foreign_key_constraint_on: { table: t(table), column } });
  const manual = (table: string, mapping: Record<string, string>) => ({ manual_configuration: { remote_table: t(table), column_mapping: mapping } });
  const refused = async (body: unknown, error: string): Promise<void> => {
    const res = await meta(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body).to.deep.equal({ path: '$.args', error, code: 'not-supported' });
  };

  before(async () => {
    db = await createTestDatabase('citus_rules', CITUS_CATALOG_EMULATION + FIXTURE);
    plain = await createTestDatabase('citus_plain', 'CREATE TABLE thing (id int PRIMARY KEY)');
    store = await createTestDatabase('citus_store', 'CREATE TABLE rating (company_id int PRIMARY KEY, stars int NOT NULL); INSERT INTO rating VALUES (1, 5), (2, 3);');
    // The default plugin list, with db/citus reading the emulated catalog.
    const preset = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'plugins.json'), 'utf8')) as { plugins: unknown[] };
    const plugins = preset.plugins.map((p) => (p === 'db/citus' ? { id: 'db/citus', options: { catalogSchema: S } } : p));
    const dir = mkdtempSync(join(tmpdir(), 'svc-citus-'));
    writeFileSync(join(dir, 'plugins.json'), JSON.stringify({ plugins }));
    engine = await startTestEngine({ databaseUrl: store.url, pluginConfig: join(dir, 'plugins.json'), adminSecret: 'citus', pgConnections: 4 });
    await ok({ type: 'dist_add_source', args: { name: SOURCE, configuration: { connection_info: { database_url: db.url, pool_settings: { max_connections: 4 } } } } });
    for (const name of ['country', 'company', 'campaign', 'ad', 'note', 'tag']) await ok({ type: 'dist_track_table', args: { source: SOURCE, table: t(name) } });
  });
  after(async () => {
    await engine?.close();
    await Promise.all([db?.drop(), plain?.drop(), store?.drop()]);
  });

  it('has the dist_ operations of the reference\'s Citus commands, and not the others', async () => {
    const unknown = (type: string) => `unknown operation type "${type}" on /v1/metadata`;
    for (const type of [
      'dist_add_source', 'dist_update_source', 'dist_drop_source', 'dist_track_table', 'dist_untrack_table', 'dist_set_table_customization',
      'dist_set_gateway_federation_config', 'dist_create_object_relationship', 'dist_create_array_relationship', 'dist_drop_relationship',
      'dist_set_relationship_comment', 'dist_rename_relationship', 'dist_create_select_permission', 'dist_create_insert_permission',
      'dist_create_update_permission', 'dist_create_delete_permission', 'dist_drop_select_permission', 'dist_set_permission_comment',
      'dist_track_function', 'dist_untrack_function', 'dist_set_function_customization', 'dist_create_function_permission',
      'dist_drop_function_permission', 'dist_create_remote_relationship', 'dist_update_remote_relationship', 'dist_delete_remote_relationship',
    ]) {
      const res = await meta({ type, args: { source: 'nope' } });
      expect(res.status, type).to.equal(400);
      expect(res.body['error'], type).to.not.equal(unknown(type));
    }
    for (const type of ['dist_add_computed_field', 'dist_drop_computed_field', 'dist_set_table_is_enum', 'dist_create_event_trigger', 'dist_delete_event_trigger', 'dist_redeliver_event', 'dist_invoke_event_trigger']) {
      const res = await meta({ type, args: {} });
      expect(res.body, type).to.deep.include({ code: 'parse-failed', error: unknown(type) });
    }
    const sql = await call<Body>(engine, '/v2/query', { type: 'dist_run_sql', args: { source: SOURCE, sql: 'SELECT count(*) AS n FROM company' } }, ADMIN);
    expect(sql.body).to.deep.equal({ result_type: 'TuplesOk', result: [['n'], ['2']] });
  });

  it('validates arguments with the reference\'s errors', async () => {
    const res = await meta({ type: 'dist_add_source', args: { name: 'bad', configuration: { connection_info: {} } } });
    expect(res.status).to.equal(400);
    expect(res.body['code']).to.equal('parse-failed');
    const missing = await meta({ type: 'dist_track_table', args: { source: SOURCE } });
    expect(missing.body).to.deep.include({ code: 'parse-failed', path: '$.args' });
    const noTable = await meta({ type: 'dist_track_table', args: { source: SOURCE, table: t('nope') } });
    expect(noTable.status).to.equal(400);
    expect(noTable.body['error']).to.include('nope');
  });

  it('refuses a source whose database has no Citus catalog', async () => {
    const res = await meta({ type: 'dist_add_source', args: { name: 'plain', configuration: { connection_info: { database_url: plain.url } } } });
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.include(`the database has no Citus catalog: ${S}.pg_dist_partition does not exist`);
    const exported = await meta({ type: 'export_metadata', args: {} });
    expect((exported.body['sources'] as Array<{ name: string }>).map((s) => s.name)).to.not.include('plain');
  });

  it('allows the relationships the reference allows, and they run', async () => {
    await ok(rel('object', 'company', 'country', { foreign_key_constraint_on: 'country_code' })); // distributed → reference
    await ok(rel('array', 'company', 'campaigns', fkOn('campaign', 'company_id'))); // colocated distributed, on their columns
    await ok(rel('object', 'campaign', 'company', { foreign_key_constraint_on: 'company_id' }));
    await ok(rel('object', 'note', 'country', { foreign_key_constraint_on: 'country_code' })); // local → reference
    await ok(rel('array', 'country', 'notes', fkOn('note', 'country_code'))); // reference → local
    await ok(rel('array', 'note', 'tags', manual('tag', { id: 'note_id' }))); // local → local
    await ok(rel('object', 'tag', 'note', manual('note', { note_id: 'id' })));
    await ok(rel('object', 'campaign', 'owner', manual('company', { company_id: 'id', name: 'name' }))); // extra pairs beside the distribution columns
    const res = await graphql(engine, `{ company(order_by: {id: asc}) { name country { name } campaigns(order_by: {id: asc}) { name company { id } } }
      country(where: {code: {_eq: "FR"}}) { notes { body tags { label note { id } } } } }`, undefined, ADMIN);
    expect(res.body).to.deep.equal({
      data: {
        company: [
          { name: 'Acme', country: { name: 'France' }, campaigns: [{ name: 'Spring', company: { id: 1 } }, { name: 'Autumn', company: { id: 1 } }] },
          { name: 'Kaisha', country: { name: 'Japan' }, campaigns: [{ name: 'Launch', company: { id: 2 } }] },
        ],
        country: [{ notes: [{ body: 'hello', tags: [{ label: 'first', note: { id: 1 } }] }] }],
      },
    });
  });

  it('refuses, at creation, the relationships Citus cannot join, with the reference\'s messages', async () => {
    await refused(rel('array', 'country', 'companies', fkOn('company', 'country_code')), 'reference tables (country) cannot have an array relationship against a distributed table (company)');
    await refused(rel('object', 'note', 'company', { foreign_key_constraint_on: 'company_id' }), 'local tables (note) cannot have an object relationship against a distributed table (company)');
    await refused(rel('array', 'company', 'notes', fkOn('note', 'company_id')), 'distributed tables (company) cannot have an array relationship against a local table (note)');
    await refused(rel('object', 'company', 'some_note', manual('note', { id: 'company_id' })), 'distributed tables (company) cannot have an object relationship against a local table (note)');
    await refused(rel('array', 'company', 'countries', manual('country', { country_code: 'code' })), 'distributed tables (company) cannot have an array relationship against a reference table (country)');
    await refused(rel('object', 'tag', 'company', manual('company', { id: 'id' })), 'local tables (tag) cannot have an object relationship against a distributed table (company)');
    await refused(
      rel('object', 'ad', 'company', manual('company', { company_id: 'id' })),
      'distributed tables (ad) and (company) are not colocated: a relationship between distributed tables needs both in one colocation group',
    );
    await refused(
      rel('array', 'company', 'campaigns_by_id', manual('campaign', { id: 'id' })),
      'a relationship between distributed tables (company) and (campaign) must join their distribution columns: "id" with "company_id"',
    );
    const exported = await meta({ type: 'export_metadata', args: {} });
    const names = (exported.body['sources'] as Array<{ name: string; tables: Array<{ object_relationships?: Array<{ name: string }>; array_relationships?: Array<{ name: string }> }> }>)
      .find((s) => s.name === SOURCE)!
      .tables.flatMap((tb) => [...(tb.object_relationships ?? []), ...(tb.array_relationships ?? [])].map((r) => r.name));
    expect(names).to.have.members(['country', 'campaigns', 'company', 'country', 'notes', 'tags', 'note', 'owner']);
  });

  it('reports a refused relationship as inconsistent on replace_metadata', async () => {
    const exported = (await meta({ type: 'export_metadata', args: {} })).body;
    const next = structuredClone(exported) as { sources: Array<{ name: string; tables: Array<{ table: { name: string }; array_relationships?: unknown[] }> }> };
    const company = next.sources.find((s) => s.name === SOURCE)!.tables.find((tb) => tb.table.name === 'company')!;
    company.array_relationships = [...(company.array_relationships ?? []), { name: 'notes', using: fkOn('note', 'company_id') }];
    const reason = 'Inconsistent object: in table "company": in relationship "notes": distributed tables (company) cannot have an array relationship against a local table (note)';
    const strict = await meta({ type: 'replace_metadata', version: 2, args: { metadata: next } });
    expect(strict.status).to.equal(400);
    expect(strict.body['internal']).to.deep.equal([
      {
        type: 'array_relation',
        name: `array_relation notes in table company in source ${SOURCE}`,
        definition: { source: SOURCE, table: t('company'), name: 'notes', using: fkOn('note', 'company_id'), comment: null },
        reason,
      },
    ]);
    const allowed = await meta({ type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: next } });
    expect(allowed.body).to.deep.include({ is_consistent: false });
    const listed = await meta({ type: 'get_inconsistent_metadata', args: {} });
    expect((listed.body['inconsistent_objects'] as Array<{ reason: string }>).map((o) => o.reason)).to.deep.equal([reason]);
    // The refused relationship is not served; the rest is.
    const q = await graphql(engine, '{ company(where: {id: {_eq: 1}}) { name notes { id } } }', undefined, ADMIN);
    expect((q.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).to.equal('validation-failed');
    await ok({ type: 'drop_inconsistent_metadata', args: {} });
    expect((await meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
  });

  it('tracks an enum table through dist_track_table, as the reference does for Citus', async () => {
    await ok({ type: 'dist_track_table', args: { source: SOURCE, table: t('status'), is_enum: true } });
    const res = await graphql(engine, '{ __type(name: "status_enum") { enumValues { name description } } ad(where: {status: {_eq: closed}}) { id status } }', undefined, ADMIN);
    expect(res.body).to.deep.equal({
      data: { __type: { enumValues: [{ name: 'active', description: 'Running' }, { name: 'closed', description: null }] }, ad: [{ id: 2, status: 'closed' }] },
    });
  });

  it('sends rows built with json_build_object, never row_to_json, for every shape of read', async () => {
    const queries = [
      '{ company { id name country { name } campaigns(order_by: {id: desc}, limit: 1, offset: 1) { name company { id } } } }',
      '{ company_by_pk(id: 1) { name campaigns_aggregate { aggregate { count max { id } } nodes { name } } } }',
      '{ company_aggregate(where: {campaigns: {name: {_ilike: "%a%"}}}) { aggregate { count(columns: country_code, distinct: true) sum { id } } nodes { id country { code } } } }',
      '{ campaign(distinct_on: [company_id], order_by: [{company_id: asc}, {company: {name: desc}}, {id: desc}]) { id owner { name } } }',
      '{ country(where: {notes: {tags: {label: {_eq: "first"}}}}) { notes(where: {_not: {body: {_is_null: true}}}) { tags { label note { id } } } } }',
    ];
    for (const query of queries) {
      const res = await call<Array<{ sql: string }>>(engine, '/v1/graphql/explain', { query: { query } }, ADMIN);
      expect(res.status, query).to.equal(200);
      for (const { sql } of res.body) expect(sql, query).to.include('json_build_object').and.not.include('row_to_json');
      // And PostgreSQL runs the statement.
      const run = await graphql(engine, query, undefined, ADMIN);
      expect((run.body as { errors?: unknown }).errors, query).to.equal(undefined);
    }
  });

  it('tracks functions with permissions, as the reference\'s Citus commands allow', async () => {
    await ok({ type: 'dist_track_function', args: { source: SOURCE, function: { schema: 'public', name: 'companies_in' } } });
    await ok({ type: 'dist_create_select_permission', args: { source: SOURCE, table: t('company'), role: 'viewer', permission: { columns: ['id', 'name'], filter: {} } } });
    await ok({ type: 'dist_create_function_permission', args: { source: SOURCE, function: { schema: 'public', name: 'companies_in' }, role: 'viewer' } });
    const res = await graphql(engine, '{ companies_in(args: {code: "JP"}) { name } }', undefined, { ...ADMIN, 'x-svc-role': 'viewer' });
    expect(res.body).to.deep.equal({ data: { companies_in: [{ name: 'Kaisha' }] } });
    await ok({ type: 'dist_drop_function_permission', args: { source: SOURCE, function: { schema: 'public', name: 'companies_in' }, role: 'viewer' } });
    await ok({ type: 'dist_untrack_function', args: { source: SOURCE, function: { schema: 'public', name: 'companies_in' } } });
  });

  it('joins a distributed table to another source through a remote relationship', async () => {
    await ok({ type: 'pg_track_table', args: { source: 'default', table: t('rating') } });
    const definition = { to_source: { relationship_type: 'object', source: 'default', table: t('rating'), field_mapping: { id: 'company_id' } } };
    await ok({ type: 'dist_create_remote_relationship', args: { source: SOURCE, table: t('company'), name: 'rating', definition } });
    const res = await graphql(engine, '{ company(order_by: {id: asc}) { id rating { stars } } }', undefined, ADMIN);
    expect(res.body).to.deep.equal({ data: { company: [{ id: 1, rating: { stars: 5 } }, { id: 2, rating: { stars: 3 } }] } });
    await ok({ type: 'dist_update_remote_relationship', args: { source: SOURCE, table: t('company'), name: 'rating', definition } });
    await ok({ type: 'dist_delete_remote_relationship', args: { source: SOURCE, table: t('company'), name: 'rating' } });
  });

  it('serves live queries and streams, polled since it installs no change triggers', async () => {
    const client = transportClient(`ws://127.0.0.1:${engine.port}/v1/graphql`, ADMIN);
    try {
      const live = new Received<{ data: { company: Array<{ name: string }> } }>();
      const stream = new Received<{ data: { company_stream: Array<{ id: number }> } }>();
      client.subscribe({ query: 'subscription { company(order_by: {id: asc}) { name } }' }, live.sink);
      client.subscribe({ query: 'subscription { company_stream(cursor: {initial_value: {id: 0}}, batch_size: 10) { id } }' }, stream.sink);
      expect((await live.nth(0)).data.company.map((c) => c.name)).to.deep.equal(['Acme', 'Kaisha']);
      expect((await stream.nth(0)).data.company_stream).to.deep.equal([{ id: 1 }, { id: 2 }]);
      const ins = await graphql(engine, 'mutation { insert_company_one(object: {id: 3, name: "Nova", country_code: "FR"}) { id } }', undefined, ADMIN);
      expect(ins.body).to.deep.equal({ data: { insert_company_one: { id: 3 } } });
      expect((await live.nth(1)).data.company.map((c) => c.name)).to.deep.equal(['Acme', 'Kaisha', 'Nova']);
      expect((await stream.nth(1)).data.company_stream).to.deep.equal([{ id: 3 }]);
      expect(live.errors.concat(stream.errors)).to.deep.equal([]);
      const triggers = await db.sql('SELECT count(*)::int AS n FROM pg_trigger WHERE NOT tgisinternal');
      expect(triggers.rows[0]).to.deep.equal({ n: 0 });
    } finally {
      await client.dispose();
      await graphql(engine, 'mutation { delete_company_by_pk(id: 3) { id } }', undefined, ADMIN);
    }
  });
});
