import { expect } from 'chai';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import type { Engine } from '../../../core/engine.js';

const SCHEMA = `CREATE TABLE item (id int PRIMARY KEY, origin text NOT NULL);`;

describe('postgres read_replicas', function () {
  let primary: TestDatabase;
  let replicaA: TestDatabase;
  let replicaB: TestDatabase;
  let engine: Engine;

  before(async () => {
    primary = await createTestDatabase('rr_primary', `${SCHEMA} INSERT INTO item VALUES (1, 'primary');`);
    // Real replicas hold the same rows; these differ so the test can see which one answered.
    replicaA = await createTestDatabase('rr_a', `${SCHEMA} INSERT INTO item VALUES (1, 'replica-a');`);
    replicaB = await createTestDatabase('rr_b', `${SCHEMA} INSERT INTO item VALUES (1, 'replica-b');`);
    engine = await startTestEngine({ databaseUrl: primary.url });
    const add = await metadata(engine, {
      type: 'pg_add_source',
      args: {
        name: 'main',
        configuration: {
          connection_info: { database_url: primary.url },
          read_replicas: [{ database_url: replicaA.url, pool_settings: { max_connections: 2 } }, { database_url: replicaB.url }],
        },
      },
    });
    expect(add.status, JSON.stringify(add.body)).to.equal(200);
    const track = await metadata(engine, { type: 'pg_track_table', args: { source: 'main', table: 'item' } });
    expect(track.status, JSON.stringify(track.body)).to.equal(200);
  });

  after(async () => {
    await engine?.close();
    for (const db of [primary, replicaA, replicaB]) await db?.drop();
  });

  it('is kept in the metadata and leaves it consistent', async () => {
    const exported = await metadata(engine, { type: 'export_metadata', args: {} });
    const main = exported.body.sources.find((s: { name: string }) => s.name === 'main');
    expect(main.configuration.read_replicas).to.have.length(2);
    const inconsistent = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(inconsistent.body.is_consistent).to.equal(true);
  });

  it('serves queries from the replicas in turn', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push((await graphql(engine, '{ item { origin } }')).body.data.item[0].origin);
    expect(seen.sort()).to.deep.equal(['replica-a', 'replica-a', 'replica-b', 'replica-b']);
  });

  it('writes to the primary', async () => {
    const m = await graphql(engine, 'mutation { insert_item_one(object: {id: 2, origin: "written"}) { id origin } }');
    expect(m.body).to.deep.equal({ data: { insert_item_one: { id: 2, origin: 'written' } } });
    expect((await primary.sql('SELECT origin FROM item WHERE id = 2')).rows).to.deep.equal([{ origin: 'written' }]);
    expect((await replicaA.sql('SELECT count(*)::int AS n FROM item')).rows[0].n).to.equal(1);
  });

  it('refuses a malformed replica list with a coded error', async () => {
    const bad = await metadata(engine, {
      type: 'pg_update_source',
      args: { name: 'main', configuration: { connection_info: { database_url: primary.url }, read_replicas: [{ pool_settings: {} }] } },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'parse-failed', path: '$.args.configuration.read_replicas[0]' });
  });
});
