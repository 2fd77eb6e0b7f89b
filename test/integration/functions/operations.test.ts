import { expect } from 'chai';
import { ok, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

type ErrorBody = { code: string; error: string; path: string; internal?: Array<{ type: string; name: string; definition: unknown; reason: string }> };

/** Every refusal of the function and computed-field operations, with the reference's codes and messages. */
describe('function and computed-field operations: errors and legacy forms (integration)', function () {
  let f: FunctionsFixture;
  before(async () => {
    f = await startFunctionsFixture('fn_ops');
  });
  after(async () => f?.close());

  const fails = async (body: unknown, endpoint: 'metadata' | 'query' = 'metadata'): Promise<ErrorBody> => {
    const res = endpoint === 'metadata' ? await f.meta(body) : await f.query(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    return res.body as ErrorBody;
  };
  const track = (fn: unknown, configuration?: unknown) =>
    fails({ type: 'pg_track_function', args: { function: fn, ...(configuration ? { configuration } : {}) } });
  const reasonOf = (b: ErrorBody) => ({ code: b.code, error: b.error, type: b.internal?.[0]?.type, name: b.internal?.[0]?.name });

  describe('pg_track_function', () => {
    it('needs a function', async () => {
      expect(await fails({ type: 'pg_track_function', args: {} })).to.deep.include({ code: 'parse-failed', error: 'key "function" not found', path: '$.args' });
    });

    it('refuses a function that does not exist', async () => {
      const b = await track('nope');
      expect(reasonOf(b)).to.deep.equal({
        code: 'invalid-configuration',
        error: 'Inconsistent object: in function "nope": no such function exists: "nope"',
        type: 'function',
        name: 'function nope in source default',
      });
      expect(b.internal![0]!.definition).to.deep.equal({ schema: 'public', name: 'nope' });
    });

    it('refuses an overloaded function', async () => {
      expect((await track('dup')).error).to.equal(
        'Inconsistent object: in function "dup": function "dup" is overloaded. Overloaded functions are not supported',
      );
    });

    it('lists every reason a function cannot be tracked', async () => {
      expect((await track('count_articles')).error).to.equal(
        'Inconsistent object: in function "count_articles": the function "count_articles" cannot be tracked for the following reasons:\n' +
          '  • the function does not return a "COMPOSITE" type\n' +
          '  • the function does not return a table\n',
      );
      expect((await track('vsum')).error).to.equal(
        'Inconsistent object: in function "vsum": the function "vsum" cannot be tracked because function with "VARIADIC" parameters are not supported',
      );
    });

    it('refuses a function returning an untracked table', async () => {
      expect((await track('list_untracked')).error).to.equal('Inconsistent object: table "untracked_t" is not tracked');
    });

    it('checks the session argument and exposed_as', async () => {
      expect((await track('text_session', { session_argument: 's' })).error).to.equal(
        'Inconsistent object: in function "text_session": the function "text_session" cannot be tracked because given session argument "s" is not of type json',
      );
      expect((await track('search_articles', { session_argument: 'nope' })).error).to.equal(
        'Inconsistent object: in function "search_articles": the function "search_articles" cannot be tracked because given session argument "nope" not the input argument of the function',
      );
      expect((await track('search_articles', { exposed_as: 'mutation' })).error).to.equal(
        'Inconsistent object: in function "search_articles": the function "search_articles" cannot be tracked because the function was requested to be exposed as a mutation, but is not marked VOLATILE. Maybe the function was given the wrong volatility when it was defined?',
      );
      expect(await track('search_articles', { exposed_as: 'both' })).to.deep.include({ code: 'parse-failed', path: '$.args.configuration.exposed_as' });
      expect(await track('search_articles', { custom_root_fields: { function: 'a', function_aggregate: 'a' } })).to.deep.include({
        code: 'parse-failed',
        error: 'the following custom root field names are duplicated: "a" and "a"',
      });
    });

    it('refuses a function already tracked, or named like a tracked table', async () => {
      await ok(f.meta({ type: 'pg_track_function', args: { function: 'search_articles' } }));
      expect(await track('search_articles')).to.deep.include({ code: 'already-tracked', error: 'function already tracked: "search_articles"' });
      expect(await track('author')).to.deep.include({ code: 'not-supported', error: 'table with name "author" already exists' });
    });

    it('refuses a function whose root field a table already generates', async () => {
      const b = await track({ schema: 'public', name: 'articles_rated' }, { custom_root_fields: { function: 'article' } });
      expect(b.error).to.equal(
        "Inconsistent object: Encountered conflicting definitions in the selection set for 'query_root' for field 'article' defined in [table article in source default, function articles_rated in source default]. Fields must not be defined more than once across all sources.",
      );
    });
  });

  describe('untrack, customization and function permissions', () => {
    it('refuses them for an untracked function', async () => {
      const missing = { code: 'not-exists', error: 'function "best_article" not found in the cache', path: '$.args' };
      expect(await fails({ type: 'pg_untrack_function', args: { function: 'best_article' } })).to.deep.equal(missing);
      expect(await fails({ type: 'pg_set_function_customization', args: { function: 'best_article', configuration: {} } })).to.deep.equal(missing);
      expect(await fails({ type: 'pg_create_function_permission', args: { function: 'best_article', role: 'user' } })).to.deep.equal(missing);
    });

    it('needs the role to have a select permission on the return table', async () => {
      expect(await fails({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } })).to.deep.equal({
        code: 'not-supported',
        error: 'function permission can only be added when the function\'s return table "article" has select permission configured for role: "user"',
        path: '$.args',
      });
    });

    it('refuses a second permission and dropping one that does not exist', async () => {
      await ok(f.meta({ type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: {} } } }));
      await ok(f.meta({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } }));
      expect(await fails({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } })).to.deep.include({
        code: 'already-exists',
        error: 'permission of role "user" already exists for function "search_articles" in source: "default"',
      });
      expect(await fails({ type: 'pg_drop_function_permission', args: { function: 'search_articles', role: 'other' } })).to.deep.include({
        code: 'not-exists',
        error: 'permission of role "other" does not exist for function "search_articles" in source: "default"',
      });
      const exported = await f.meta({ type: 'export_metadata', args: {} });
      expect((exported.body as { sources: Array<{ functions: unknown[] }> }).sources[0]!.functions).to.deep.equal([
        { function: { schema: 'public', name: 'search_articles' }, permissions: [{ role: 'user' }] },
      ]);
    });

    it('untracks a function with its permissions', async () => {
      await ok(f.meta({ type: 'pg_untrack_function', args: { function: 'search_articles', source: 'default' } }));
      const exported = await f.meta({ type: 'export_metadata', args: {} });
      expect((exported.body as { sources: Array<Record<string, unknown>> }).sources[0]).to.not.have.property('functions');
    });
  });

  describe('pg_add_computed_field and pg_drop_computed_field', () => {
    const add = (name: string, definition: unknown, table: unknown = 'author') =>
      fails({ type: 'pg_add_computed_field', args: { table, name, definition } });
    const ctx = (name: string) => `Inconsistent object: in table "author": in computed field "${name}": `;

    it('needs a tracked table and a function that exists', async () => {
      expect(await add('x', { function: 'full_name' }, 'random')).to.deep.equal({
        code: 'not-exists',
        error: 'table "random" does not exist in source: default',
        path: '$.args.table',
      });
      const b = await add('x', { function: 'random_function' });
      expect(reasonOf(b)).to.deep.equal({
        code: 'invalid-configuration',
        error: `${ctx('x')}no such function exists: "random_function"`,
        type: 'computed_field',
        name: 'computed_field x in table author in source default',
      });
      expect(b.internal![0]!.definition).to.deep.equal({
        source: 'default',
        table: { schema: 'public', name: 'author' },
        name: 'x',
        definition: { function: { schema: 'public', name: 'random_function' } },
        comment: null,
      });
    });

    it('refuses names taken by a column or a relationship', async () => {
      expect((await add('name', { function: 'full_name' })).error).to.equal('Inconsistent object: field definition conflicts with postgres column');
      expect((await add('articles', { function: 'full_name' })).error).to.equal('Inconsistent object: conflicting definitions for field "articles"');
    });

    it('checks the function, its table and session arguments, with every reason', async () => {
      expect((await add('x', { function: 'full_name', table_argument: 'random' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" because "random" is not an input argument of the function "full_name"`,
      );
      expect((await add('x', { function: 'volatile_name' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" because the function "volatile_name" is of type VOLATILE; cannot be added as a computed field`,
      );
      expect((await add('x', { function: 'hello' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" because the function "hello" has no input arguments`,
      );
      expect((await add('x', { function: 'fetch_articles' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" for the following reasons:\n` +
          '  • first argument of the function "fetch_articles" is not COMPOSITE type\n' +
          '  • first argument of the function "fetch_articles" of type "pg_catalog.text" is not the table to which the computed field is being added\n',
      );
      expect((await add('x', { function: 'fetch_articles', table_argument: 'author_row', session_argument: 'search' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" because "search" argument of the function "fetch_articles" is not of type JSON`,
      );
      expect((await add('x', { function: 'list_untracked', table_argument: 'nope' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" for the following reasons:\n` +
          '  • the function "list_untracked" returning set of table "untracked_t" is not tracked or not found in database\n' +
          '  • "nope" is not an input argument of the function "list_untracked"\n',
      );
      expect((await add('x', { function: 'count_articles', table_argument: 'nope' })).error).to.equal(
        `${ctx('x')}the computed field "x" cannot be added to table "author" because "nope" is not an input argument of the function "count_articles"`,
      );
    });

    it('refuses dropping what is not a computed field, and one a permission lists unless cascade', async () => {
      expect(await fails({ type: 'pg_drop_computed_field', args: { table: 'author', name: 'nope' } })).to.deep.equal({
        code: 'not-exists',
        error: 'computed field "nope" does not exist',
        path: '$.args.name',
      });
      expect(await fails({ type: 'pg_drop_computed_field', args: { table: 'author', name: 'name' } })).to.deep.include({
        code: 'unexpected-payload',
        error: 'expecting a computed field; but, "name" is a column',
      });
      await ok(f.meta({ type: 'pg_add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'full_name' } } }));
      await ok(
        f.meta({
          type: 'pg_create_select_permission',
          args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {}, computed_fields: ['full_name'] } },
        }),
      );
      expect(await fails({ type: 'pg_drop_computed_field', args: { table: 'author', name: 'full_name' } })).to.deep.equal({
        code: 'dependency-error',
        error: 'cannot drop due to the following dependent objects: permission author.user.select in source "default"',
        path: '$.args',
      });
      await ok(f.meta({ type: 'pg_drop_computed_field', args: { table: 'author', name: 'full_name', cascade: true } }));
      const exported = await f.meta({ type: 'export_metadata', args: {} });
      const author = (exported.body as { sources: Array<{ tables: Array<Record<string, unknown>> }> }).sources[0]!.tables.find(
        (t) => (t.table as { name: string }).name === 'author',
      )!;
      expect(author).to.not.have.property('computed_fields');
      expect(author).to.not.have.property('select_permissions');
    });

    it('refuses a permission listing a computed field that does not exist', async () => {
      const b = await fails({
        type: 'pg_create_select_permission',
        args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {}, computed_fields: ['full_name'] } },
      });
      expect(b.error).to.equal('Inconsistent object: in table "author": in permission for role "user": computed field "full_name" does not exist');
    });

    it('refuses listing a table computed field in a permission: its rows follow the table permission', async () => {
      await ok(
        f.meta({ type: 'pg_add_computed_field', args: { table: 'author', name: 'top', definition: { function: 'top_articles', table_argument: 'author_row' } } }),
      );
      const b = await fails({
        type: 'pg_create_select_permission',
        args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {}, computed_fields: ['top'] } },
      });
      expect(b.error).to.equal(
        'Inconsistent object: in table "author": in permission for role "user": select permissions on computed field "top" are auto-derived from the permissions on its returning table "article" and cannot be specified manually',
      );
      await ok(f.meta({ type: 'pg_drop_computed_field', args: { table: 'author', name: 'top' } }));
    });
  });

  describe('legacy /v1/query forms', () => {
    it('track_function v1 and v2, untrack_function, create/drop_function_permission', async () => {
      const q = async (body: unknown) => {
        const res = await f.query(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      };
      await q({ type: 'track_function', args: { schema: 'public', name: 'search_articles' } });
      await q({ type: 'track_function', version: 2, args: { function: { name: 'my_articles' }, configuration: { session_argument: 'svc_session' } } });
      await q({ type: 'create_function_permission', args: { function: 'search_articles', role: 'user' } });
      await q({ type: 'drop_function_permission', args: { function: 'search_articles', role: 'user' } });
      await q({ type: 'untrack_function', args: { schema: 'public', name: 'search_articles' } });
      await q({ type: 'untrack_function', args: { schema: 'public', name: 'my_articles' } });
      expect(await fails({ type: 'untrack_function', args: { name: 'my_articles' } }, 'query')).to.deep.include({ code: 'not-exists' });
    });

    it('add_computed_field and drop_computed_field', async () => {
      const q = async (body: unknown) => {
        const res = await f.query(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      };
      await q({ type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'full_name' } } });
      await q({ type: 'drop_computed_field', args: { table: 'author', name: 'full_name' } });
    });

    it('answers the legacy names only on /v1/query and the pg_ names only on /v1/metadata', async () => {
      expect((await fails({ type: 'track_function', args: { schema: 'public', name: 'search_articles' } })).code).to.equal('parse-failed');
      expect((await fails({ type: 'pg_track_function', args: { function: 'search_articles' } }, 'query')).code).to.equal('parse-failed');
    });
  });
});
