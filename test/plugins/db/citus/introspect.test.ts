/**
 * The citus kind's registration and introspection: it registers without connecting, declares
 * the reference's Citus capabilities, refuses an option it cannot use, and reads each table's
 * distribution from `pg_dist_partition` (here the emulated catalog on plain PostgreSQL) in the
 * catalog it returns.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createTestKernel, type DatabaseKind, type TableDistribution } from '../../../../core/sdk/index.js';
import citus from '../../../../plugins/db/citus/index.js';
import postgres from '../../../../plugins/db/postgres/index.js';
import { CITUS_CATALOG_EMULATION, EMULATED_CATALOG_SCHEMA, placeTable } from '../../../helpers/citus-catalog.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';

const S = EMULATED_CATALOG_SCHEMA;

async function citusKind(catalogSchema = S): Promise<DatabaseKind> {
  const kernel = await createTestKernel({ plugins: [postgres, citus], pluginOptions: { 'db/citus': { catalogSchema } } });
  return kernel.container.resolve<DatabaseKind>('db.citus');
}

describe('db/citus kind (integration)', function () {
  this.timeout(30000);
  let db: TestDatabase;

  before(async () => {
    db = await createTestDatabase(
      'citus_introspect',
      CITUS_CATALOG_EMULATION +
        `CREATE SCHEMA "odd schema";
         CREATE TABLE "odd schema"."Events" (tenant int, "Seq" int, PRIMARY KEY (tenant, "Seq"));
         CREATE TABLE tenant (id int PRIMARY KEY);
         CREATE TABLE lookup (code text PRIMARY KEY);
         CREATE TABLE settings (id int PRIMARY KEY);
         CREATE TABLE solo (id int PRIMARY KEY);
         CREATE TABLE plain (id int PRIMARY KEY);
         CREATE VIEW tenant_view AS SELECT * FROM tenant;
         ALTER TABLE tenant ADD COLUMN dropped int; ALTER TABLE tenant DROP COLUMN dropped; ALTER TABLE tenant ADD COLUMN region text;
         ${placeTable(S, 'tenant', { kind: 'distributed', column: 'region' })};
         ${placeTable(S, '"odd schema"."Events"', { kind: 'distributed', column: 'Seq', colocateWith: 'none' })};
         ${placeTable(S, 'lookup', { kind: 'reference' })};
         ${placeTable(S, 'settings', { kind: 'citus-local' })};
         ${placeTable(S, 'solo', { kind: 'distributed', column: null })};`,
    );
  });
  after(async () => {
    await db?.drop();
  });

  it('registers kind citus, prefix dist, with the capabilities of the reference\'s Citus commands, without connecting', async () => {
    const kind = await citusKind();
    expect(kind.kind).to.equal('citus');
    expect(kind.prefix).to.equal('dist');
    expect(kind.capabilities).to.deep.equal({ functions: true, runSql: true, mutations: true, remoteRelationships: true, distinctOn: true, subscriptions: true });
    expect(kind.checkRelationship).to.be.a('function');
    const conn = kind.connect('x', { connection_info: { database_url: 'postgres://nobody@127.0.0.1:1/none' } });
    expect(conn.kind).to.equal('citus');
    expect((await conn.health(2000)).status).to.not.equal('OK');
    await conn.close();
  });

  it('refuses options it does not know or cannot use', async () => {
    for (const options of [{ catalogSchema: '' }, { catalogSchema: 'x', shards: 4 }]) {
      const err = await createTestKernel({ plugins: [postgres, citus], pluginOptions: { 'db/citus': options } }).then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(err?.code, JSON.stringify(options)).to.equal('E_PLUGIN_OPTIONS_INVALID');
    }
  });

  it('reads every table\'s distribution, with quoted names and the column by attribute number', async () => {
    const conn = (await citusKind()).connect('x', { connection_info: { database_url: db.url, pool_settings: { max_connections: 2 } } });
    try {
      const catalog = await conn.introspect();
      const byName = new Map(catalog.tables.map((t) => [`${t.schema}.${t.name}`, t.distribution] as const));
      const colocation = (key: string): number => (byName.get(key as `${string}.${string}`) as { colocation: number }).colocation;
      const expected: Record<string, TableDistribution> = {
        'public.tenant': { kind: 'distributed', column: 'region', colocation: colocation('public.tenant') },
        'odd schema.Events': { kind: 'distributed', column: 'Seq', colocation: colocation('odd schema.Events') },
        'public.lookup': { kind: 'reference' },
        'public.settings': { kind: 'local' },
        'public.solo': { kind: 'distributed', column: null, colocation: colocation('public.solo') },
        'public.plain': { kind: 'local' },
        'public.tenant_view': { kind: 'local' },
      };
      for (const [key, d] of Object.entries(expected)) expect(byName.get(key as `${string}.${string}`), key).to.deep.equal(d);
      expect(new Set([colocation('public.tenant'), colocation('odd schema.Events'), colocation('public.solo')]).size).to.equal(3);
      // The emulated catalog's own tables are tables of the database too, and local.
      expect(byName.get(`${S}.pg_dist_partition`)).to.deep.equal({ kind: 'local' });
    } finally {
      await conn.close();
    }
  });

  it('fails introspection of a database without the Citus catalog, saying so', async () => {
    const conn = (await citusKind('pg_catalog')).connect('x', { connection_info: { database_url: db.url, pool_settings: { max_connections: 1 } } });
    try {
      const err = await conn.introspect().then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err?.message).to.equal('the database has no Citus catalog: pg_catalog.pg_dist_partition does not exist (is the citus extension installed in this database?)');
    } finally {
      await conn.close();
    }
  });
});

const REAL_URL = process.env['SVC_TEST_CITUS_URL'];

describe('db/citus kind on a real Citus server (integration)', function () {
  this.timeout(60000);
  if (!REAL_URL) {
    it.skip('reads distributions from the real pg_catalog.pg_dist_partition: skipped, SVC_TEST_CITUS_URL is not set (no Citus server on this machine)', () => undefined);
    return;
  }
  const schema = 'svc_citus_introspect';
  const run = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: REAL_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  before(() =>
    run(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema};
      CREATE TABLE ${schema}.tenant (id int PRIMARY KEY);
      CREATE TABLE ${schema}.orders (tenant_id int NOT NULL, id int NOT NULL, PRIMARY KEY (tenant_id, id));
      CREATE TABLE ${schema}.lookup (code text PRIMARY KEY);
      CREATE TABLE ${schema}.plain (id int PRIMARY KEY);
      ${placeTable('pg_catalog', `${schema}.tenant`, { kind: 'distributed', column: 'id' })};
      ${placeTable('pg_catalog', `${schema}.orders`, { kind: 'distributed', column: 'tenant_id', colocateWith: `${schema}.tenant` })};
      ${placeTable('pg_catalog', `${schema}.lookup`, { kind: 'reference' })};`),
  );
  after(() => run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

  it('reads distributions from the real pg_catalog.pg_dist_partition, and judges joins by them', async () => {
    const kind = await citusKind('pg_catalog');
    const conn = kind.connect('x', { connection_info: { database_url: REAL_URL, pool_settings: { max_connections: 2 } } });
    try {
      const tables = new Map((await conn.introspect()).tables.filter((t) => t.schema === schema).map((t) => [t.name, t] as const));
      const tenant = tables.get('tenant')!.distribution as { kind: string; column: string; colocation: number };
      expect(tenant).to.include({ kind: 'distributed', column: 'id' });
      expect(tables.get('orders')!.distribution).to.deep.equal({ kind: 'distributed', column: 'tenant_id', colocation: tenant.colocation });
      expect(tables.get('lookup')!.distribution).to.deep.equal({ kind: 'reference' });
      expect(tables.get('plain')!.distribution).to.deep.equal({ kind: 'local' });
      const check = (kindOf: 'object' | 'array', from: string, to: string, mapping: Array<[string, string]>) =>
        kind.checkRelationship!({ kind: kindOf, using: 'manual', table: tables.get(from)!, target: tables.get(to)!, mapping });
      expect(check('object', 'orders', 'tenant', [['tenant_id', 'id']])).to.equal(null);
      expect(check('array', 'lookup', 'tenant', [['code', 'id']])).to.equal(`reference tables (${schema}.lookup) cannot have an array relationship against a distributed table (${schema}.tenant)`);
    } finally {
      await conn.close();
    }
  });
});
