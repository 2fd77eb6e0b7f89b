import { expect } from 'chai';
import { buildSchema } from 'graphql';
import { call, graphql, metadata, startTestEngine } from '../../../helpers/engine.js';
import type { Engine } from '../../../../core/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from '../../../integration/read-api/fixture.js';

/**
 * Apollo Federation subgraph support over HTTP, as a gateway calls it: `_service { sdl }` to
 * compose, `_entities(representations:)` to resolve references. Real engine, real PostgreSQL.
 */
const ENTITIES = `query ($representations: [_Any!]!) {
  _entities(representations: $representations) { __typename ... on author { id name } ... on article { id title } }
}`;

const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '2' };

describe('metadata/gateway-federation (integration)', function () {
  this.timeout(30_000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('gwfed', { experimentalFeatures: ['gateway_federation'] });
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_set_gateway_federation_config', args: { table: 'author', gateway_federation_config: { enable: 'v1' } } },
        // The reference's argument name is accepted too.
        { type: 'pg_set_gateway_federation_config', args: { table: 'article', apollo_federation_config: { enable: 'v1' } } },
        { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
        { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
        // A role that cannot see the key column: no entity for it.
        { type: 'pg_create_select_permission', args: { table: 'author', role: 'nokey', permission: { columns: ['name'], filter: {} } } },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  it('_service.sdl is the role schema with @key on the federated tables only, and parses as SDL', async () => {
    const data = dataOf(await graphql(f.engine, '{ _service { sdl __typename } }'));
    expect(data._service.__typename).to.equal('_Service');
    const sdl: string = data._service.sdl;
    expect(sdl).to.contain('type author @key(fields: "id") {');
    expect(sdl).to.contain('type article @key(fields: "id") {');
    expect(sdl).to.match(/^type comment \{$/m);
    expect(sdl).to.contain('_entities(representations: [_Any!]!): [_Entity]!');
    expect(sdl).to.contain('union _Entity = ');
    expect(sdl).to.contain('schema {\n  query: query_root');
    // Parses once the federation directive is declared, as a gateway's composition does.
    const schema = buildSchema(`directive @key(fields: String!) repeatable on OBJECT | INTERFACE\n${sdl}`);
    expect(schema.getType('author')).to.not.equal(undefined);
  });

  it('_entities answers rows by key in representation order, null for an unknown key', async () => {
    const representations = [
      { __typename: 'article', id: 3 },
      { __typename: 'author', id: 1 },
      { __typename: 'author', id: 999 },
      { __typename: 'author', id: '2' },
      { __typename: 'article', id: 1 },
    ];
    const data = dataOf(await graphql(f.engine, ENTITIES, { representations }));
    expect(data._entities).to.deep.equal([
      { __typename: 'article', id: 3, title: 'On Computable Numbers' },
      { __typename: 'author', id: 1, name: 'Ada Lovelace' },
      null,
      { __typename: 'author', id: 2, name: 'Alan Turing' },
      { __typename: 'article', id: 1, title: 'Notes on the Analytical Engine' },
    ]);
  });

  it('runs one statement per type, not per representation', async () => {
    const conn = f.engine.ref.current.sources.get('default')!.connection;
    const original = conn.runQuery.bind(conn);
    const texts: string[] = [];
    conn.runQuery = (...args: Parameters<typeof original>) => {
      texts.push(args[0].text);
      return original(...args);
    };
    try {
      const representations = [1, 2, 3, 4, 5].map((id) => ({ __typename: 'author', id })).concat([1, 2, 3].map((id) => ({ __typename: 'article', id })));
      const data = dataOf(await graphql(f.engine, ENTITIES, { representations }));
      expect(data._entities).to.have.length(8);
      expect(data._entities.every((e: unknown) => e !== null)).to.equal(true);
      expect(texts).to.have.length(2);
      // The keys are one array parameter, never SQL text.
      for (const t of texts) expect(t).to.not.match(/Ada|'1'/);
    } finally {
      conn.runQuery = original;
    }
  });

  it('matches composite keys as whole tuples (no cross-product rows)', async () => {
    const sql = `CREATE TABLE edition (book int, lang text, title text NOT NULL, PRIMARY KEY (book, lang));
      INSERT INTO edition VALUES (1, 'en', 'One'), (1, 'fr', 'Un'), (2, 'en', 'Two'), (2, 'fr', 'Deux');`;
    const created = await call(f.engine, '/v2/query', { type: 'run_sql', args: { sql } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const res = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'edition', gateway_federation_config: { enable: 'v1' } } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const sdl: string = dataOf(await graphql(f.engine, '{ _service { sdl } }'))._service.sdl;
    expect(sdl).to.contain('type edition @key(fields: "book lang") {');
    const representations = [
      { __typename: 'edition', book: 2, lang: 'fr' },
      { __typename: 'edition', book: 1, lang: 'en' },
      { __typename: 'edition', book: 1, lang: 'de' },
    ];
    const data = dataOf(await graphql(f.engine, '($r: [_Any!]!) { _entities(representations: $r) { ... on edition { title } } }'.replace('(', 'query ('), { r: representations }));
    expect(data._entities).to.deep.equal([{ title: 'Deux' }, { title: 'One' }, null]);
  });

  it('takes representations written in the query too', async () => {
    const data = dataOf(await graphql(f.engine, '{ _entities(representations: [{__typename: "author", id: 3}]) { ... on author { name } } }'));
    expect(data._entities).to.deep.equal([{ name: 'Grace Hopper' }]);
  });

  it('applies the role\'s select permission: rows it cannot see are null, columns it cannot see are not fields', async () => {
    const representations = [{ __typename: 'article', id: 3 }, { __typename: 'article', id: 1 }, { __typename: 'author', id: 1 }];
    const data = dataOf(await graphql(f.engine, ENTITIES, { representations }, USER));
    expect(data._entities).to.deep.equal([{ __typename: 'article', id: 3, title: 'On Computable Numbers' }, null, { __typename: 'author', id: 1, name: 'Ada Lovelace' }]);
    const hidden = await graphql(f.engine, '{ _entities(representations: [{__typename: "author", id: 1}]) { ... on author { email } } }', {}, USER);
    expect(hidden.body.errors[0].extensions.code).to.equal('validation-failed');
    expect(hidden.body.errors[0].message).to.contain('email');
  });

  it('a session variable the permission needs and the request lacks is the same error as for a table query', async () => {
    const noId = { 'x-svc-role': 'user' };
    const viaTable = await graphql(f.engine, '{ article { id } }', {}, noId);
    const viaEntities = await graphql(f.engine, ENTITIES, { representations: [{ __typename: 'article', id: 3 }] }, noId);
    expect(viaTable.body.errors[0].message).to.match(/x-svc-user-id/i);
    expect(viaEntities.body.errors[0].message).to.equal(viaTable.body.errors[0].message);
    expect(viaEntities.body.errors[0].extensions.code).to.equal(viaTable.body.errors[0].extensions.code);
  });

  it('a role that cannot select the key has _service but no _entities', async () => {
    const nokey = { 'x-svc-role': 'nokey' };
    const sdl: string = dataOf(await graphql(f.engine, '{ _service { sdl } }', {}, nokey))._service.sdl;
    expect(sdl).to.not.contain('@key');
    expect(sdl).to.not.contain('_entities');
    const res = await graphql(f.engine, '{ _entities(representations: []) { __typename } }', {}, nokey);
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('refuses bad representations with the reference messages and runs nothing', async () => {
    const cases: Array<[unknown[], string]> = [
      [[{ id: 1 }], '__typename key not found'],
      [[{ __typename: 5, id: 1 }], '__typename can only be a string value'],
      [[{ __typename: 'not valid', id: 1 }], 'not valid is not a valid graphql name'],
      [[{ __typename: 'comment', id: 1 }], 'comment is not found in selection set or apollo federation is not enabled for the type'],
      [[{ __typename: 'author' }], 'cannot find id in _Any type'],
      [[7], 'representations is expecting a list of objects only'],
    ];
    for (const [representations, message] of cases) {
      const res = await graphql(f.engine, ENTITIES, { representations });
      expect(res.body.errors, message).to.be.an('array');
      expect(res.body.errors[0].message).to.equal(message);
      expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
    }
  });

  it('round-trips the setting through export_metadata under the reference key', async () => {
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    const tables = exported.body.sources[0].tables as Array<{ table: { name: string }; apollo_federation_config?: unknown }>;
    expect(tables.find((t) => t.table.name === 'author')!.apollo_federation_config).to.deep.equal({ enable: 'v1' });
    expect(tables.find((t) => t.table.name === 'comment')!.apollo_federation_config).to.equal(undefined);
    const replaced = await metadata(f.engine, { type: 'replace_metadata', args: exported.body });
    expect(replaced.status).to.equal(200);
    const sdl: string = dataOf(await graphql(f.engine, '{ _service { sdl } }'))._service.sdl;
    expect(sdl).to.contain('type author @key(fields: "id") {');
  });

  describe('without the experimental feature', () => {
    let plain: Engine;
    before(async () => {
      plain = await startTestEngine({ databaseUrl: f.db.url });
    });
    after(async () => plain?.close());
    it('keeps the stored setting but adds no federation field', async () => {
      const res = await graphql(plain, '{ _service { sdl } }');
      expect(res.body.errors[0].message).to.equal("field '_service' not found in type: 'query_root'");
    });
  });
});
