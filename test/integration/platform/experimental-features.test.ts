/**
 * The built experimental features change the schema as they say: `hide_update_many_fields` drops
 * `update_<t>_many`, `hide_stream_fields` drops `<t>_stream`; without them both are there.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const ROOTS = '{ __schema { mutationType { fields { name } } subscriptionType { fields { name } } } }';

interface Roots {
  mutation: string[];
  subscription: string[];
}

async function roots(engine: Engine): Promise<Roots> {
  const res = await graphql<{ data: { __schema: { mutationType: { fields: Array<{ name: string }> }; subscriptionType: { fields: Array<{ name: string }> } } } }>(
    engine,
    ROOTS,
  );
  const s = res.body.data.__schema;
  return { mutation: s.mutationType.fields.map((f) => f.name), subscription: s.subscriptionType.fields.map((f) => f.name) };
}

describe('--experimental-features that are built (integration)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  const engines: Engine[] = [];

  before(async () => {
    db = await createTestDatabase('harden3_experimental', 'CREATE TABLE note (id serial PRIMARY KEY, body text)');
  });
  after(async () => {
    for (const e of engines) await e.close();
    await db?.drop();
  });

  async function engineWith(experimentalFeatures: string[]): Promise<Engine> {
    const engine = await startTestEngine({ databaseUrl: db.url, experimentalFeatures });
    engines.push(engine);
    const tracked = await metadata(engine, { type: 'pg_track_table', args: { table: 'note' } });
    expect([200, 400]).to.include(tracked.status); // 400: already tracked by the previous engine
    await metadata(engine, { type: 'reload_metadata', args: {} });
    return engine;
  }

  it('serves update_<t>_many and <t>_stream by default', async () => {
    const r = await roots(await engineWith([]));
    expect(r.mutation).to.include('update_note_many');
    expect(r.subscription).to.include('note_stream');
  });

  it('hides them with hide_update_many_fields and hide_stream_fields', async () => {
    const r = await roots(await engineWith(['hide_update_many_fields', 'hide_stream_fields']));
    expect(r.mutation).to.include('update_note').and.not.include('update_note_many');
    expect(r.subscription).to.include('note').and.not.include('note_stream');
  });
});
