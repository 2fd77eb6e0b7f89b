/**
 * A metadata operation carries each role's built schema into the new snapshot when nothing that
 * schema reads changed (core/schema-cache/carry.ts), and rebuilds it otherwise. Each test makes a
 * change, then checks which roles kept the very same RoleSchema object and that every rebuilt one
 * shows the change (a new field, a field gone, a new filter's rows): with unconditional reuse the
 * "rebuilt" checks fail.
 *
 * `ra` reads author (every row) and article (author 1's); `rb` reads comment only; `nobody` has
 * no permission at all.
 */
import { expect } from 'chai';
import type { GraphQLObjectType } from 'graphql';
import type { RoleSchema } from '../../../core/graphql/schema-draft.js';
import type { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
import { call, metadata } from '../../helpers/engine.js';
import type { TestGraphQLServer } from '../../helpers/graphql-server.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { messagesServer } from '../remote/fixture.js';
import { as, queryAs } from './fixture.js';

const select = (table: string, role: string, permission: Record<string, unknown>) => ({
  type: 'pg_create_select_permission',
  args: { source: 'default', table, role, permission },
});
const dropSelect = (table: string, role: string) => ({ type: 'pg_drop_select_permission', args: { source: 'default', table, role } });
const RA_ARTICLE = { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 1 } } };

describe('role schemas carried across metadata operations (integration)', function () {
  this.timeout(60_000);
  let f: ReadApiFixture;
  let remote: TestGraphQLServer;
  const ref = (): SchemaCacheRef => f.engine.kernel.container.resolve<SchemaCacheRef>('schemaCacheRef');
  const schemaOf = (role: string): Promise<RoleSchema> => ref().current.schemaFor(role);
  const ok = async (body: unknown): Promise<void> => {
    const res = await metadata(f.engine, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };
  const rootFields = (s: RoleSchema, root: 'query' | 'mutation' = 'query'): string[] =>
    Object.keys((root === 'query' ? s.schema.getQueryType() : s.schema.getMutationType())?.getFields() ?? {});
  const typeFields = (s: RoleSchema, type: string): string[] => Object.keys((s.schema.getType(type) as GraphQLObjectType | undefined)?.getFields() ?? {});

  /** Warms the roles, runs `change`, and answers each role's schema before and after. */
  async function across(roles: string[], change: () => Promise<void>): Promise<Map<string, { before: RoleSchema; after: RoleSchema }>> {
    const before = new Map<string, RoleSchema>();
    for (const role of roles) before.set(role, await schemaOf(role));
    await change();
    const out = new Map<string, { before: RoleSchema; after: RoleSchema }>();
    for (const role of roles) out.set(role, { before: before.get(role)!, after: await schemaOf(role) });
    return out;
  }
  const kept = (m: Map<string, { before: RoleSchema; after: RoleSchema }>, role: string): boolean => m.get(role)!.before === m.get(role)!.after;

  before(async () => {
    remote = await messagesServer();
    f = await startReadApiFixture('perm_carry', { enableRemoteSchemaPermissions: true, experimentalFeatures: ['inherited_roles'] });
    await ok({
      type: 'bulk',
      args: [
        select('author', 'ra', { columns: ['id', 'name'], filter: {} }),
        select('article', 'ra', RA_ARTICLE),
        select('comment', 'rb', { columns: ['id', 'body'], filter: {} }),
      ],
    });
  });
  after(async () => {
    await f?.close();
    await remote?.stop();
  });

  it('keeps every role but admin over a newly tracked table only admin sees, and the kept schema still serves', async () => {
    await f.db.sql('CREATE TABLE extra (id int PRIMARY KEY, name text)');
    const m = await across(['admin', 'ra', 'rb', 'nobody'], () => ok({ type: 'pg_track_table', args: { source: 'default', table: 'extra' } }));
    expect(kept(m, 'ra')).to.equal(true);
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'nobody')).to.equal(true);
    expect(kept(m, 'admin')).to.equal(false);
    expect(rootFields(m.get('admin')!.after)).to.include('extra');
    const res = await queryAs(f, as('ra'), '{ article(order_by: {id: asc}) { id author_id } }');
    expect(res.data.article.map((a: { author_id: number }) => a.author_id)).to.deep.equal([1, 1]);
  });

  it('takes over the resolved tables an operation did not touch, and resolves the one it did', async () => {
    const tablesNow = () => ref().current.sources.get('default')!.tables;
    const before = tablesNow();
    await ok({ type: 'pg_set_table_customization', args: { source: 'default', table: 'extra', configuration: { custom_name: 'extra_things' } } });
    try {
      const after = tablesNow();
      expect(after).to.not.equal(before);
      expect(after.get('public.author')).to.equal(before.get('public.author'));
      expect(after.get('public.comment')).to.equal(before.get('public.comment'));
      expect(after.get('public.extra')).to.not.equal(before.get('public.extra'));
      expect(after.get('public.extra')!.typeName).to.equal('extra_things');
    } finally {
      await ok({ type: 'pg_set_table_customization', args: { source: 'default', table: 'extra', configuration: {} } });
    }
  });

  it('rebuilds the role given a permission on a new table, keeps the others', async () => {
    const m = await across(['ra', 'rb'], () => ok(select('extra', 'rb', { columns: ['id'], filter: {} })));
    expect(kept(m, 'ra')).to.equal(true);
    expect(kept(m, 'rb')).to.equal(false);
    expect(rootFields(m.get('rb')!.after)).to.include('extra');
  });

  it('rebuilds the roles that saw a table when it is untracked', async () => {
    const m = await across(['ra', 'rb'], () => ok({ type: 'pg_untrack_table', args: { source: 'default', table: 'extra', cascade: true } }));
    expect(kept(m, 'ra')).to.equal(true);
    expect(kept(m, 'rb')).to.equal(false);
    expect(rootFields(m.get('rb')!.after)).to.not.include('extra');
  });

  it('rebuilds a role whose filter alone changed, and answers with the new filter', async () => {
    const first = await queryAs(f, as('ra'), '{ article { author_id } }');
    expect(new Set(first.data.article.map((a: { author_id: number }) => a.author_id))).to.deep.equal(new Set([1]));
    const m = await across(['ra', 'rb'], () =>
      ok({ type: 'bulk', args: [dropSelect('article', 'ra'), select('article', 'ra', { ...RA_ARTICLE, filter: { author_id: { _eq: 2 } } })] }),
    );
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'ra')).to.equal(false);
    const res = await queryAs(f, as('ra'), '{ article { author_id } }');
    expect(new Set(res.data.article.map((a: { author_id: number }) => a.author_id))).to.deep.equal(new Set([2]));
  });

  it('rebuilds a role whose permission columns changed, or whose permission was dropped', async () => {
    const m = await across(['ra', 'rb'], () =>
      ok({ type: 'bulk', args: [dropSelect('article', 'ra'), select('article', 'ra', { ...RA_ARTICLE, columns: [...RA_ARTICLE.columns, 'rating'] })] }),
    );
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'ra')).to.equal(false);
    expect(typeFields(m.get('ra')!.after, 'article')).to.include('rating');
    const dropped = await across(['ra', 'rb'], () => ok(dropSelect('author', 'ra')));
    expect(kept(dropped, 'rb')).to.equal(true);
    expect(kept(dropped, 'ra')).to.equal(false);
    expect(rootFields(dropped.get('ra')!.after)).to.not.include('author');
    await ok(select('author', 'ra', { columns: ['id', 'name'], filter: {} }));
  });

  it('rebuilds the roles that see a table given a new relationship', async () => {
    const m = await across(['ra', 'rb'], () =>
      ok({
        type: 'pg_create_array_relationship',
        args: { source: 'default', table: 'author', name: 'writings', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
      }),
    );
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'ra')).to.equal(false);
    expect(typeFields(m.get('ra')!.after, 'author')).to.include('writings');
  });

  it('rebuilds the roles that see a table whose custom name and root fields changed', async () => {
    const m = await across(['ra', 'rb'], () =>
      ok({
        type: 'pg_set_table_customization',
        args: { source: 'default', table: 'article', configuration: { custom_name: 'post', custom_root_fields: { select: 'posts' } } },
      }),
    );
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'ra')).to.equal(false);
    expect(rootFields(m.get('ra')!.after)).to.include('posts');
    expect(rootFields(m.get('ra')!.after)).to.not.include('article');
    expect(m.get('ra')!.after.schema.getType('post')).to.not.equal(undefined);
  });

  it('rebuilds after a column rename through run_sql and after reload_metadata', async () => {
    const m = await across(['rb'], async () => {
      const res = await call(f.engine, '/v2/query', { type: 'run_sql', args: { source: 'default', sql: 'ALTER TABLE comment RENAME COLUMN body TO content' } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
    expect(kept(m, 'rb')).to.equal(false);
    expect(typeFields(m.get('rb')!.after, 'comment')).to.include('content').and.not.include('body');
    const reloaded = await across(['ra', 'rb'], () => ok({ type: 'reload_metadata', args: {} }));
    expect(kept(reloaded, 'ra')).to.equal(false);
    expect(kept(reloaded, 'rb')).to.equal(false);
  });

  it('rebuilds an inherited role when a parent permission changes, and every role when inherited roles change', async () => {
    const added = await across(['ra', 'rb'], () => ok({ type: 'add_inherited_role', args: { role_name: 'rab', role_set: ['ra', 'rb'] } }));
    expect(kept(added, 'ra')).to.equal(false);
    expect(kept(added, 'rb')).to.equal(false);
    expect(rootFields(await schemaOf('rab'))).to.include.members(['author', 'comment']);
    const parent = await across(['rab'], () =>
      ok({ type: 'bulk', args: [dropSelect('author', 'ra'), select('author', 'ra', { columns: ['id', 'name', 'email'], filter: {} })] }),
    );
    expect(kept(parent, 'rab')).to.equal(false);
    expect(typeFields(parent.get('rab')!.after, 'author')).to.include('email');
    const dropped = await across(['ra', 'rab'], () => ok({ type: 'drop_inherited_role', args: { role_name: 'rab' } }));
    expect(kept(dropped, 'ra')).to.equal(false);
    expect(rootFields(dropped.get('rab')!.after)).to.not.include('author');
  });

  it('rebuilds the roles when an action permission changes', async () => {
    await ok({ type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'x', type: 'Int' }] }] } });
    await ok({ type: 'create_action', args: { name: 'doit', definition: { handler: 'http://127.0.0.1:9/h', output_type: 'Out' } } });
    const m = await across(['ra', 'rb'], () => ok({ type: 'create_action_permission', args: { action: 'doit', role: 'ra' } }));
    expect(kept(m, 'ra')).to.equal(false);
    expect(rootFields(m.get('ra')!.after, 'mutation')).to.include('doit');
    const dropped = await across(['ra'], () => ok({ type: 'drop_action_permission', args: { action: 'doit', role: 'ra' } }));
    expect(kept(dropped, 'ra')).to.equal(false);
    expect(rootFields(dropped.get('ra')!.after, 'mutation')).to.not.include('doit');
  });

  it('rebuilds the roles when a remote schema permission changes', async () => {
    await ok({ type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } });
    const sdl = 'schema { query: Query } type Query { hello(name: String): String! }';
    const m = await across(['ra', 'rb'], () =>
      ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'messages', role: 'ra', definition: { schema: sdl } } }),
    );
    expect(kept(m, 'ra')).to.equal(false);
    expect(rootFields(m.get('ra')!.after)).to.include('hello');
    expect(rootFields(m.get('rb')!.after)).to.not.include('hello');
    const dropped = await across(['ra'], () => ok({ type: 'drop_remote_schema_permissions', args: { remote_schema: 'messages', role: 'ra' } }));
    expect(kept(dropped, 'ra')).to.equal(false);
    expect(rootFields(dropped.get('ra')!.after)).to.not.include('hello');
  });

  it('still keeps unaffected roles once actions and remote schemas are in the metadata', async () => {
    await f.db.sql('CREATE TABLE extra2 (id int PRIMARY KEY)');
    const m = await across(['ra', 'rb', 'nobody'], () => ok({ type: 'pg_track_table', args: { source: 'default', table: 'extra2' } }));
    expect(kept(m, 'ra')).to.equal(true);
    expect(kept(m, 'rb')).to.equal(true);
    expect(kept(m, 'nobody')).to.equal(true);
  });

  it('rebuilds a role whose column references a table that becomes an enum, though it cannot see that table', async () => {
    await f.db.sql(`CREATE TABLE status (value text PRIMARY KEY); INSERT INTO status VALUES ('open'), ('done');
      CREATE TABLE task (id int PRIMARY KEY, status text NOT NULL REFERENCES status(value)); INSERT INTO task VALUES (1, 'open');`);
    await ok({
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { source: 'default', table: 'status' } },
        { type: 'pg_track_table', args: { source: 'default', table: 'task' } },
        select('task', 'rt', { columns: ['id', 'status'], filter: {} }),
      ],
    });
    const statusType = (s: RoleSchema): string => String((s.schema.getType('task') as GraphQLObjectType).getFields()['status']!.type);
    const m = await across(['rt', 'ra'], () => ok({ type: 'pg_set_table_is_enum', args: { source: 'default', table: 'status', is_enum: true } }));
    expect(kept(m, 'ra')).to.equal(true);
    expect(kept(m, 'rt')).to.equal(false);
    expect(statusType(m.get('rt')!.before)).to.equal('String!');
    expect(statusType(m.get('rt')!.after)).to.equal('status_enum!');
    // Only the enum table's entry changes here: the task table is the same, its column's type not.
    const renamed = await across(['rt', 'ra'], () =>
      ok({ type: 'pg_set_table_customization', args: { source: 'default', table: 'status', configuration: { custom_name: 'state' } } }),
    );
    expect(kept(renamed, 'ra')).to.equal(true);
    expect(kept(renamed, 'rt')).to.equal(false);
    expect(statusType(renamed.get('rt')!.after)).to.equal('state_enum!');
  });
});
