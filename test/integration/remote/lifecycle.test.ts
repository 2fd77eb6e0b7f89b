/**
 * Remote schemas that misbehave: down when the engine starts (inconsistent, the rest serves,
 * `reload_remote_schema` brings it back), slow (timeout), answering garbage, clashing with the
 * database; and customization of names both ways.
 */
import { expect } from 'chai';
import { buildSchema } from 'graphql';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { freePort, startGraphQLServer, type TestGraphQLServer } from '../../helpers/graphql-server.js';
import { createTestDatabase } from '../../helpers/database.js';
import { ADMIN, messagesServer, startWorld, USERS_SQL, type RemoteWorld } from './fixture.js';

describe('remote schemas: failures, reload and customization', function () {
  this.timeout(90_000);

  it('starts with the remote down, serves the rest, and serves the remote after reload_remote_schema', async () => {
    const port = await freePort();
    const db = await createTestDatabase('remote_down', USERS_SQL);
    const url = `http://127.0.0.1:${port}/graphql`;
    const seed = await startTestEngine({ databaseUrl: db.url, adminSecret: 'secret' });
    const server = await startGraphQLServer(buildSchema('type Query { ping: String }'), { ping: () => 'pong' }, port);
    try {
      expect((await metadata(seed, { type: 'pg_track_table', args: { table: 'users' } }, ADMIN)).status).to.equal(200);
      expect((await metadata(seed, { type: 'add_remote_schema', args: { name: 'pinger', definition: { url, timeout_seconds: 5 } } }, ADMIN)).status).to.equal(200);
      await seed.close();
      await server.stop();
      const engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'secret' });
      try {
        const inc = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} }, ADMIN);
        expect(inc.body.is_consistent).to.equal(false);
        expect(inc.body.inconsistent_objects[0]).to.include({ type: 'remote_schema', name: 'remote_schema pinger' });
        expect(inc.body.inconsistent_objects[0].reason).to.equal(`Inconsistent object: HTTP exception occurred while sending the request to "${url}"`);
        const rest = await graphql(engine, '{ users_by_pk(id: 1) { name } }', undefined, ADMIN);
        expect(rest.body).to.deep.equal({ data: { users_by_pk: { name: 'ada' } } });
        await server.start();
        expect((await metadata(engine, { type: 'reload_remote_schema', args: { name: 'pinger' } }, ADMIN)).status).to.equal(200);
        const back = await graphql(engine, '{ ping users_by_pk(id: 1) { name } }', undefined, ADMIN);
        expect(back.body).to.deep.equal({ data: { ping: 'pong', users_by_pk: { name: 'ada' } } });
        expect((await metadata(engine, { type: 'get_inconsistent_metadata', args: {} }, ADMIN)).body.is_consistent).to.equal(true);
      } finally {
        await engine.close();
      }
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  describe('with a live remote', () => {
    let world: RemoteWorld;
    let remote: TestGraphQLServer;
    before(async () => {
      remote = await messagesServer();
      world = await startWorld('remote_life', {}, { MESSAGES_URL: remote.url, API_KEY: 'from-env' });
    });
    after(async () => {
      await world?.close();
      await remote?.stop();
    });

    it('refuses an unreachable remote, both urls, and clashing root fields with the reference messages', async () => {
      const port = await freePort();
      const down = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'x', definition: { url: `http://127.0.0.1:${port}/` } } }, ADMIN);
      expect(down.status).to.equal(400);
      expect(down.body.code).to.equal('invalid-configuration');
      expect(down.body.error).to.equal(`Inconsistent object: HTTP exception occurred while sending the request to "http://127.0.0.1:${port}/"`);
      const both = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'x', definition: { url: remote.url, url_from_env: 'X' } } }, ADMIN);
      expect(both.body).to.deep.include({ code: 'invalid-params', error: "both `url` and `url_from_env` can't be present" });
      const clash = await startGraphQLServer(buildSchema('type Query { users: Int }'), { users: () => 1 });
      try {
        const r = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'clash', definition: { url: clash.url } } }, ADMIN);
        expect(r.body).to.deep.include({ code: 'invalid-configuration', error: 'Inconsistent object: Field cannot be overwritten by remote field "users"' });
      } finally {
        await clash.stop();
      }
    });

    it('customizes type and field names, namespaces root fields, and maps them back (typename, fragments, variables)', async () => {
      const def = {
        url_from_env: 'MESSAGES_URL',
        headers: [{ name: 'x-api-key', value_from_env: 'API_KEY' }],
        forward_client_headers: true,
        customization: {
          root_fields_namespace: 'msg',
          type_names: { prefix: 'M_', mapping: { Message: 'Note' } },
          field_names: [{ parent_type: 'Message', mapping: { text: 'body' } }],
        },
      };
      const add = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'custom', definition: def } }, ADMIN);
      expect(add.status, JSON.stringify(add.body)).to.equal(200);
      remote.requests.length = 0;
      const r = await graphql(
        world.engine,
        'query($f: M_MessageFilter) { msg { __typename messages(where: $f) { __typename ...N } } } fragment N on Note { body id }',
        { f: { authorId: 2 } },
        { ...ADMIN, 'x-custom': 'c1' },
      );
      expect(r.body).to.deep.equal({ data: { msg: { __typename: 'M_Query', messages: [{ __typename: 'Note', body: 'alan here', id: 3 }] } } });
      expect(remote.requests).to.have.length(1);
      const sent = remote.requests[0]!;
      expect(sent.body.query).to.contain('MessageFilter').and.not.contain('M_MessageFilter');
      expect(sent.body.query).to.contain('body: text');
      expect(sent.headers['x-api-key']).to.equal('from-env');
      expect(sent.headers['x-custom']).to.equal('c1');
      expect(sent.headers['x-forwarded-host']).to.be.a('string');
      const removed = await metadata(world.engine, { type: 'remove_remote_schema', args: { name: 'custom' } }, ADMIN);
      expect(removed.status).to.equal(200);
    });

    it('times out a slow remote with a clear error', async () => {
      const slow = await startGraphQLServer(buildSchema('type Query { slow: String }'), { slow: () => 'late' });
      try {
        expect((await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'slow', definition: { url: slow.url, timeout_seconds: 1 } } }, ADMIN)).status).to.equal(200);
        slow.delayMs = 3000;
        const r = await graphql(world.engine, '{ slow }', undefined, ADMIN);
        expect(r.body.errors[0].extensions.code).to.equal('remote-schema-error');
        expect(r.body.errors[0].message).to.equal(`HTTP exception occurred while sending the request to "${slow.url}"`);
        slow.delayMs = 0;
        slow.rawAnswer = '{"data": null}';
        const bad = await graphql(world.engine, '{ slow }', undefined, ADMIN);
        expect(bad.body.errors[0].message).to.equal('Missing "data" field with no errors in response from remote');
        slow.rawAnswer = '{"errors": []}';
        const empty = await graphql(world.engine, '{ slow }', undefined, ADMIN);
        expect(empty.body.errors[0].message).to.equal('Empty "errors" field in response from remote');
      } finally {
        await metadata(world.engine, { type: 'remove_remote_schema', args: { name: 'slow' } }, ADMIN);
        await slow.stop();
      }
    });

    it('introspect_remote_schema answers the raw introspection', async () => {
      await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'plain', definition: { url: remote.url } } }, ADMIN);
      const r = await metadata(world.engine, { type: 'introspect_remote_schema', args: { name: 'plain' } }, ADMIN);
      expect(r.body.data.__schema.queryType.name).to.equal('Query');
      const missing = await metadata(world.engine, { type: 'reload_remote_schema', args: { name: 'nope' } }, ADMIN);
      expect(missing.body).to.deep.include({ code: 'not-exists', error: 'remote schema with name "nope" does not exist' });
    });
  });
});
