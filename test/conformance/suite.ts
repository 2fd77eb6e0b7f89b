/**
 * The cross-kind conformance suite: what every database kind must answer alike. A kind runs it by
 * handing `conformanceSuite` an adapter that creates the fixture (two tables, `author` and
 * `article`, with the rows below) in its own dialect, and says how to add it as a source and
 * what the kind declares. Everything else is GraphQL and metadata calls against a real engine,
 * compared with the answers written here; what a kind does not declare is checked to be absent
 * from its schema, never skipped silently.
 *
 *   author(id int PK, name varchar(50) NOT NULL, rating int NULL)
 *     (1, 'Ann', 5) (2, 'bob', NULL) (3, 'Cy', 3)
 *   article(id int PK auto-increment, title varchar(100) NOT NULL, author_id int NULL FK → author.id,
 *           published boolean NOT NULL, views int NULL) with a unique key on title
 *     (1, 'Alpha', 1, true, 10) (2, 'beta', 1, false, 20) (3, 'Gamma', 2, true, NULL) (4, 'delta%', 3, true, 5)
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { call, graphql, metadata, startTestEngine } from '../helpers/engine.js';

export interface ConformanceAdapter {
  /** Shown in the suite's title. */
  name: string;
  /** The kind's metadata prefix (`pg`, `maria`). */
  prefix: string;
  /** The kind's plugin id, loaded beside the generic metadata and API plugins. */
  plugin: string;
  /** Options for the kind's plugin (its plugin-config `options`), when it needs any. */
  pluginOptions?: Record<string, unknown>;
  /** Creates the fixture schema and rows; returns the source configuration and the tables' schema. */
  setup(): Promise<{ configuration: unknown; schema: string }>;
  teardown(): Promise<void>;
  /** The unique key on article.title, as the kind names it (for on_conflict). */
  titleConstraint: string;
  capabilities: {
    distinctOn: boolean;
    mutations: boolean;
    onConflict: boolean;
    /** Comparison operators the kind answers (beyond this list, the suite checks nothing). */
    operators: readonly string[];
    /**
     * The aggregate predicates (`where: {articles_aggregate: {count: ...}}`) the kind offers over
     * the fixture's `article` (no floating-point column there: `count`, `bool_and`, `bool_or`).
     * Not given: the suite's predicate test is pending for the kind.
     */
    aggregatePredicates?: readonly string[];
  };
}

const ADMIN = { 'x-svc-admin-secret': 'conformance' };
const SOURCE = 'conf';

type Body = { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> };

export function conformanceSuite(adapter: ConformanceAdapter): void {
  describe(`database kind conformance: ${adapter.name} (integration)`, function () {
    this.timeout(60000);
    let engine: Engine;
    let store: TestDatabase;
    let schema: string;
    const p = adapter.prefix;
    const caps = adapter.capabilities;

    const meta = async (body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => metadata(engine, body, ADMIN);
    const ok = async (body: unknown): Promise<void> => {
      const res = await meta(body);
      expect(res.body, JSON.stringify(body)).to.deep.include({ message: 'success' });
    };
    const gql = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = ADMIN): Promise<Body> =>
      (await graphql(engine, query, variables, headers)).body as Body;
    const data = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<Record<string, unknown>> => {
      const body = await gql(query, variables, headers);
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      return body.data!;
    };
    const errorCode = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<string | undefined> => {
      const body = await gql(query, variables, headers);
      expect(body.errors, `expected an error for ${query}`).to.be.an('array');
      return body.errors![0]!.extensions?.code;
    };
    const ids = async (where: string): Promise<number[]> => {
      const d = await data(`{ article(where: ${where}, order_by: {id: asc}) { id } }`);
      return (d['article'] as Array<{ id: number }>).map((r) => r.id);
    };
    const table = (name: string) => ({ schema, name });
    const graphqlExplain = (body: unknown): Promise<{ status: number; body: unknown }> => call(engine, '/v1/graphql/explain', body, ADMIN);

    before(async () => {
      const fixture = await adapter.setup();
      schema = fixture.schema;
      store = await createTestDatabase(`mariadb_conf_${p}`);
      const dir = mkdtempSync(join(tmpdir(), 'svc-conformance-'));
      const pluginConfig = join(dir, 'plugins.json');
      const plugins = [
        'db/postgres',
        ...(adapter.plugin === 'db/postgres' ? [] : [adapter.pluginOptions ? { id: adapter.plugin, options: adapter.pluginOptions } : adapter.plugin]),
        'auth/admin-secret',
        'metadata/management',
        'metadata/sources',
        'metadata/tables',
        'metadata/relationships',
        'metadata/permissions',
        'api/metadata',
        'api/graphql',
      ];
      writeFileSync(pluginConfig, JSON.stringify({ plugins }));
      engine = await startTestEngine({ databaseUrl: store.url, pluginConfig, adminSecret: 'conformance' });
      await ok({ type: `${p}_add_source`, args: { name: SOURCE, configuration: fixture.configuration } });
    });
    after(async () => {
      await engine?.close();
      await store?.drop();
      await adapter.teardown();
    });

    it('tracks tables and creates object, array and manual relationships', async () => {
      for (const name of ['author', 'article']) {
        await ok({ type: `${p}_track_table`, args: { source: SOURCE, table: table(name), configuration: { custom_name: name } } });
      }
      await ok({ type: `${p}_create_object_relationship`, args: { source: SOURCE, table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
      await ok({
        type: `${p}_create_array_relationship`,
        args: { source: SOURCE, table: table('author'), name: 'articles', using: { foreign_key_constraint_on: { table: table('article'), column: 'author_id' } } },
      });
      await ok({
        type: `${p}_create_object_relationship`,
        args: { source: SOURCE, table: table('article'), name: 'writer', using: { manual_configuration: { remote_table: table('author'), column_mapping: { author_id: 'id' } } } },
      });
      const d = await data('{ article(order_by: {id: asc}, limit: 2) { id title published author { name } writer { id } } }');
      expect(d['article']).to.deep.equal([
        { id: 1, title: 'Alpha', published: true, author: { name: 'Ann' }, writer: { id: 1 } },
        { id: 2, title: 'beta', published: false, author: { name: 'Ann' }, writer: { id: 1 } },
      ]);
      const a = await data('{ author(order_by: {id: asc}) { name articles(order_by: {id: desc}) { id } } }');
      expect(a['author']).to.deep.equal([
        { name: 'Ann', articles: [{ id: 2 }, { id: 1 }] },
        { name: 'bob', articles: [{ id: 3 }] },
        { name: 'Cy', articles: [{ id: 4 }] },
      ]);
    });

    it('answers every comparison operator it declares', async () => {
      const cases: Record<string, [string, number[]]> = {
        _eq: ['{views: {_eq: 10}}', [1]],
        _neq: ['{views: {_neq: 10}}', [2, 4]],
        _gt: ['{views: {_gt: 5}}', [1, 2]],
        _lt: ['{views: {_lt: 20}}', [1, 4]],
        _gte: ['{views: {_gte: 10}}', [1, 2]],
        _lte: ['{views: {_lte: 10}}', [1, 4]],
        _in: ['{id: {_in: [1, 3, 9]}}', [1, 3]],
        _nin: ['{id: {_nin: [1, 3]}}', [2, 4]],
        _is_null: ['{views: {_is_null: true}}', [3]],
        _like: ['{title: {_like: "%a"}}', [1, 2, 3]],
        _nlike: ['{title: {_nlike: "%a"}}', [4]],
        _ilike: ['{title: {_ilike: "%A"}}', [1, 2, 3]],
        _nilike: ['{title: {_nilike: "a%"}}', [2, 3, 4]],
        _similar: ['{title: {_similar: "(A|G)%"}}', [1, 3]],
        _nsimilar: ['{title: {_nsimilar: "(A|G)%"}}', [2, 4]],
        _regex: ['{title: {_regex: "^[a-z]"}}', [2, 4]],
        _nregex: ['{title: {_nregex: "^[a-z]"}}', [1, 3]],
        _iregex: ['{title: {_iregex: "^(a|b)"}}', [1, 2]],
        _niregex: ['{title: {_niregex: "^(a|b)"}}', [3, 4]],
      };
      for (const op of caps.operators) {
        const c = cases[op];
        expect(c, `the suite has a case for ${op}`).to.not.equal(undefined);
        expect(await ids(c![0]), op).to.deep.equal(c![1]);
      }
      // A LIKE wildcard in the value is a pattern; `\\%` matches a literal percent sign.
      if (caps.operators.includes('_like')) expect(await ids('{title: {_like: "%\\\\%"}}')).to.deep.equal([4]);
      expect(await ids('{published: {_eq: false}}')).to.deep.equal([2]);
      // Text equality is exact, whatever the database's collation.
      expect(await ids('{title: {_eq: "alpha"}}')).to.deep.equal([]);
      expect(await ids('{title: {_eq: "Alpha "}}')).to.deep.equal([]);
      expect(await ids('{title: {_neq: "alpha"}}')).to.deep.equal([1, 2, 3, 4]);
      expect(await ids('{title: {_in: ["ALPHA", "beta"]}}')).to.deep.equal([2]);
      expect(await ids('{title: {_nin: ["ALPHA", "beta"]}}')).to.deep.equal([1, 3, 4]);
    });

    it('combines _and, _or, _not and filters through relationships', async () => {
      expect(await ids('{_and: [{views: {_gt: 1}}, {published: {_eq: true}}]}')).to.deep.equal([1, 4]);
      expect(await ids('{_or: [{id: {_eq: 1}}, {views: {_is_null: true}}]}')).to.deep.equal([1, 3]);
      expect(await ids('{_not: {author: {name: {_eq: "Ann"}}}}')).to.deep.equal([3, 4]);
      expect(await ids('{author: {rating: {_gte: 3}}}')).to.deep.equal([1, 2, 4]);
      const d = await data('{ author(where: {articles: {views: {_gt: 15}}}) { id } }');
      expect(d['author']).to.deep.equal([{ id: 1 }]);
    });

    it('orders with nulls placed as asked, and through an object relationship', async () => {
      const order = async (o: string, field = 'rating'): Promise<unknown[]> =>
        ((await data(`{ author(order_by: ${o}) { id ${field === 'rating' ? '' : ''} } }`))['author'] as Array<{ id: number }>).map((r) => r.id);
      expect(await order('{rating: asc}')).to.deep.equal([3, 1, 2]);
      expect(await order('{rating: asc_nulls_first}')).to.deep.equal([2, 3, 1]);
      expect(await order('{rating: desc}')).to.deep.equal([2, 1, 3]);
      expect(await order('{rating: desc_nulls_last}')).to.deep.equal([1, 3, 2]);
      const byAuthor = await data('{ article(order_by: [{author: {name: desc}}, {id: desc}]) { id } }');
      // Text order of names is the database's collation: only ties and direction are compared.
      expect((byAuthor['article'] as Array<{ id: number }>).map((r) => r.id)).to.have.members([1, 2, 3, 4]);
      const byRating = await data('{ article(order_by: [{author: {rating: desc_nulls_last}}, {id: asc}], limit: 3) { id } }');
      expect(byRating['article']).to.deep.equal([{ id: 1 }, { id: 2 }, { id: 4 }]);
      const nested = await data('{ author(where: {id: {_eq: 1}}) { articles(order_by: {views: desc}) { id } } }');
      expect(nested['author']).to.deep.equal([{ articles: [{ id: 2 }, { id: 1 }] }]);
    });

    it(caps.distinctOn ? 'selects distinct_on' : 'has no distinct_on argument', async () => {
      const q = '{ article(distinct_on: [author_id], order_by: [{author_id: asc}, {id: desc}]) { id } }';
      if (caps.distinctOn) expect((await data(q))['article']).to.deep.equal([{ id: 2 }, { id: 3 }, { id: 4 }]);
      else expect(await errorCode(q)).to.equal('validation-failed');
    });

    it('pages with limit and offset, at the root, nested, and from variables', async () => {
      const d = await data('{ article(order_by: {id: asc}, limit: 2, offset: 1) { id } }');
      expect(d['article']).to.deep.equal([{ id: 2 }, { id: 3 }]);
      const v = await data('query ($l: Int, $o: Int) { article(order_by: {id: asc}, limit: $l, offset: $o) { id } }', { l: 1, o: 2 });
      expect(v['article']).to.deep.equal([{ id: 3 }]);
      const n = await data('{ author(where: {id: {_eq: 1}}) { articles(order_by: {id: asc}, limit: 1, offset: 1) { id } } }');
      expect(n['author']).to.deep.equal([{ articles: [{ id: 2 }] }]);
      const nested = 'query ($l: Int, $o: Int) { author(where: {id: {_eq: 1}}) { articles(order_by: {id: desc}, limit: $l, offset: $o) { id } } }';
      expect((await data(nested, { l: 1, o: 1 }))['author']).to.deep.equal([{ articles: [{ id: 1 }] }]);
      expect((await data(nested, { l: 0 }))['author']).to.deep.equal([{ articles: [] }]);
      expect((await data(nested, { o: 1 }))['author']).to.deep.equal([{ articles: [{ id: 1 }] }]);
      expect((await data(nested, {}))['author']).to.deep.equal([{ articles: [{ id: 2 }, { id: 1 }] }]);
      const nodes = await data('query ($l: Int) { author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: asc}, limit: $l) { nodes { id } } } }', { l: 1 });
      expect(nodes['author']).to.deep.equal([{ articles_aggregate: { nodes: [{ id: 1 }] } }]);
      // The reference engine's answer to a negative limit, written or in a variable.
      expect(await errorCode('{ article(limit: -1) { id } }')).to.equal('not-supported');
      expect(await errorCode('query ($l: Int) { article(limit: $l) { id } }', { l: -1 })).to.equal('not-supported');
    });

    it('aggregates at the root and through array relationships', async () => {
      const d = await data(`{ article_aggregate(where: {published: {_eq: true}}) {
          aggregate { count sum { views } max { views } min { title } avg { views } }
          nodes { id } } }`);
      const agg = d['article_aggregate'] as { aggregate: { count: number; sum: { views: number }; max: { views: number }; min: { title: string }; avg: { views: number } }; nodes: unknown[] };
      expect(agg.aggregate.count).to.equal(3);
      expect(Number(agg.aggregate.sum.views)).to.equal(15);
      expect(agg.aggregate.max.views).to.equal(10);
      expect(Number(agg.aggregate.avg.views)).to.equal(7.5);
      expect(agg.nodes).to.have.length(3);
      const c = await data('{ article_aggregate { aggregate { count(columns: views) cd: count(columns: author_id, distinct: true) } } }');
      expect(c['article_aggregate']).to.deep.equal({ aggregate: { count: 3, cd: 3 } });
      const n = await data('{ author(order_by: {id: asc}) { articles_aggregate { aggregate { count } } } }');
      expect(n['author']).to.deep.equal([1, 2, 3].map((_, i) => ({ articles_aggregate: { aggregate: { count: [2, 1, 1][i] } } })));
      // A limit caps the rows aggregated, nested too (with a constant and with a variable).
      for (const [q, vars] of [
        ['{ author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: desc}, limit: 1) { aggregate { count sum { views } } nodes { id } } } }', undefined],
        ['query ($l: Int) { author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: desc}, limit: $l) { aggregate { count sum { views } } nodes { id } } } }', { l: 1 }],
      ] as const) {
        const paged = (await data(q, vars))['author'] as Array<{ articles_aggregate: { aggregate: { count: number; sum: { views: unknown } }; nodes: unknown[] } }>;
        expect(paged[0]!.articles_aggregate.aggregate.count).to.equal(1);
        expect(Number(paged[0]!.articles_aggregate.aggregate.sum.views)).to.equal(20);
        expect(paged[0]!.articles_aggregate.nodes).to.deep.equal([{ id: 2 }]);
      }
    });

    (caps.aggregatePredicates ? it : it.skip)('filters by aggregate predicates over an array relationship', async () => {
      const offered = await data('{ __type(name: "article_aggregate_bool_exp") { inputFields { name } } }');
      const names = ((offered['__type'] as { inputFields: Array<{ name: string }> } | null)?.inputFields ?? []).map((f) => f.name);
      expect(names).to.deep.equal([...caps.aggregatePredicates!].sort());
      const authors = async (where: string): Promise<number[]> => {
        const d = await data(`{ author(where: ${where}, order_by: {id: asc}) { id } }`);
        return (d['author'] as Array<{ id: number }>).map((r) => r.id);
      };
      expect(await authors('{articles_aggregate: {count: {predicate: {_gt: 1}}}}')).to.deep.equal([1]);
      expect(await authors('{articles_aggregate: {count: {arguments: [views], predicate: {_eq: 0}}}}')).to.deep.equal([2]);
      expect(await authors('{articles_aggregate: {count: {arguments: [author_id], distinct: true, filter: {published: {_eq: true}}, predicate: {_eq: 1}}}}')).to.deep.equal([1, 2, 3]);
      if (caps.aggregatePredicates!.includes('bool_and')) {
        expect(await authors('{articles_aggregate: {bool_and: {arguments: published, predicate: {_eq: true}}}}')).to.deep.equal([2, 3]);
        expect(await authors('{articles_aggregate: {bool_or: {arguments: published, filter: {views: {_lt: 15}}, predicate: {_eq: true}}}}')).to.deep.equal([1, 3]);
      }
    });

    it('explains a query: its SQL with values inline, and the database plan', async () => {
      const res = await graphqlExplain({ query: { query: 'query ($v: Int) { article(where: {views: {_gt: $v}}) { id author { name } } }', variables: { v: 5 } } });
      expect(res.status).to.equal(200);
      const [entry] = res.body as Array<{ field: string; sql: string; plan: string[] }>;
      expect(entry!.field).to.equal('article');
      expect(entry!.sql).to.be.a('string').and.include('5').and.not.match(/\$\d|\?/);
      expect(entry!.plan).to.be.an('array').that.is.not.empty;
    });

    it('reads a row by primary key', async () => {
      expect(await data('{ article_by_pk(id: 3) { title views author { name } } }')).to.deep.equal({ article_by_pk: { title: 'Gamma', views: null, author: { name: 'bob' } } });
      expect(await data('{ article_by_pk(id: 99) { title } }')).to.deep.equal({ article_by_pk: null });
    });

    it('applies select permissions: row filters with session variables, columns, limits and aggregations', async () => {
      await ok({
        type: `${p}_create_select_permission`,
        args: { source: SOURCE, table: table('article'), role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true } },
      });
      await ok({
        type: `${p}_create_select_permission`,
        args: { source: SOURCE, table: table('article'), role: 'capped', permission: { columns: ['id'], filter: {}, limit: 2 } },
      });
      const user = { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '1' };
      expect(await data('{ article(order_by: {id: asc}) { id title } }', undefined, user)).to.deep.equal({ article: [{ id: 1, title: 'Alpha' }, { id: 2, title: 'beta' }] });
      expect(await data('{ article_aggregate { aggregate { count } } }', undefined, user)).to.deep.equal({ article_aggregate: { aggregate: { count: 2 } } });
      expect(await errorCode('{ article { views } }', undefined, user)).to.equal('validation-failed');
      const capped = { ...ADMIN, 'x-svc-role': 'capped' };
      expect(await data('{ article(order_by: {id: asc}, limit: 3) { id } }', undefined, capped)).to.deep.equal({ article: [{ id: 1 }, { id: 2 }] });
      expect(await errorCode('{ article_aggregate { aggregate { count } } }', undefined, capped)).to.equal('validation-failed');
      // A session variable compared with a boolean column is read as a boolean.
      await ok({
        type: `${p}_create_select_permission`,
        args: { source: SOURCE, table: table('article'), role: 'drafts', permission: { columns: ['id'], filter: { published: { _eq: 'X-Svc-Published' } } } },
      });
      expect(await data('{ article(order_by: {id: asc}) { id } }', undefined, { ...ADMIN, 'x-svc-role': 'drafts', 'x-svc-published': 'false' })).to.deep.equal({ article: [{ id: 2 }] });
      expect(await data('{ article(order_by: {id: asc}) { id } }', undefined, { ...ADMIN, 'x-svc-role': 'drafts', 'x-svc-published': 'true' })).to.deep.equal({ article: [{ id: 1 }, { id: 3 }, { id: 4 }] });
      // A session variable is a value, never SQL.
      const sneaky = { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': "1' OR '1'='1" };
      const body = await gql('{ article { id } }', undefined, sneaky);
      expect(JSON.stringify(body)).to.not.include('"id":3');
    });

    if (caps.mutations) {
      it('inserts, updates and deletes with returning', async () => {
        const ins = await data(`mutation { insert_article(objects: [{title: "Eps", author_id: 2, published: false, views: 1}]) {
            affected_rows returning { title author { name } } } }`);
        expect(ins).to.deep.equal({ insert_article: { affected_rows: 1, returning: [{ title: 'Eps', author: { name: 'bob' } }] } });
        const one = await data('mutation { insert_article_one(object: {title: "Zeta", published: true}) { title views } }');
        expect(one).to.deep.equal({ insert_article_one: { title: 'Zeta', views: null } });
        const upd = await data('mutation { update_article(where: {title: {_in: ["Eps", "Zeta"]}}, _inc: {views: 2}, _set: {published: true}) { affected_rows returning { title views published } } }');
        const u = upd['update_article'] as { affected_rows: number; returning: Array<{ title: string }> };
        expect(u.affected_rows).to.equal(2);
        expect([...u.returning].sort((a, b) => a.title.localeCompare(b.title))).to.deep.equal([
          { title: 'Eps', views: 3, published: true },
          { title: 'Zeta', views: null, published: true },
        ]);
        const byPk = await data('mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {views: 11}) { id views } }');
        expect(byPk).to.deep.equal({ update_article_by_pk: { id: 1, views: 11 } });
        const many = await data(`mutation { update_article_many(updates: [
            {where: {id: {_eq: 1}}, _inc: {views: 1}}, {where: {id: {_in: [1, 4]}}, _inc: {views: 1}}]) { affected_rows returning { id views } } }`);
        const m = many['update_article_many'] as Array<{ affected_rows: number; returning: Array<{ id: number }> }>;
        expect(m.map((r) => r.affected_rows)).to.deep.equal([1, 2]);
        expect(m[0]!.returning).to.deep.equal([{ id: 1, views: 12 }]);
        expect([...m[1]!.returning].sort((a, b) => a.id - b.id)).to.deep.equal([{ id: 1, views: 13 }, { id: 4, views: 6 }]);
        await data('mutation { update_article_by_pk(pk_columns: {id: 4}, _set: {views: 5}) { id } }');
        const none = await data('mutation { delete_article_by_pk(id: 99) { id } update_article(where: {id: {_eq: 99}}, _set: {views: 1}) { affected_rows returning { id } } }');
        expect(none).to.deep.equal({ delete_article_by_pk: null, update_article: { affected_rows: 0, returning: [] } });
        const del = await data('mutation { delete_article(where: {title: {_in: ["Eps", "Zeta"]}}) { affected_rows returning { title } } }');
        expect((del['delete_article'] as { affected_rows: number }).affected_rows).to.equal(2);
        expect(await ids('{title: {_in: ["Eps", "Zeta"]}}')).to.deep.equal([]);
        await data('mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {views: 10}) { id } }');
      });

      it('inserts related rows through object and array relationships', async () => {
        const d = await data(`mutation {
            insert_author_one(object: {id: 10, name: "Dee", articles: {data: [{title: "N1", published: true}, {title: "N2", published: false}]}}) {
              name articles(order_by: {title: asc}) { title author_id } }
            insert_article_one(object: {title: "N3", published: true, author: {data: {id: 11, name: "Eve"}}}) { title author { id name } } }`);
        expect(d).to.deep.equal({
          insert_author_one: { name: 'Dee', articles: [{ title: 'N1', author_id: 10 }, { title: 'N2', author_id: 10 }] },
          insert_article_one: { title: 'N3', author: { id: 11, name: 'Eve' } },
        });
        const many = await data('mutation { insert_author(objects: [{id: 12, name: "Fay", articles: {data: [{title: "N4", published: true}]}}]) { affected_rows } }');
        // Every row written counts, the related ones too.
        expect(many).to.deep.equal({ insert_author: { affected_rows: 2 } });
        await data('mutation { delete_article(where: {title: {_in: ["N1", "N2", "N3", "N4"]}}) { affected_rows } }');
        await data('mutation { delete_author(where: {id: {_gte: 10}}) { affected_rows } }');
        expect(await ids('{}')).to.deep.equal([1, 2, 3, 4]);
      });

      it(caps.onConflict ? 'upserts with on_conflict' : 'has no on_conflict', async () => {
        const q = `mutation { insert_article(objects: [{title: "Alpha", published: true, views: 77}],
            on_conflict: {constraint: ${adapter.titleConstraint}, update_columns: [views]}) { affected_rows returning { id views } } }`;
        if (!caps.onConflict) {
          expect(await errorCode(q)).to.equal('validation-failed');
          return;
        }
        expect(await data(q)).to.deep.equal({ insert_article: { affected_rows: 1, returning: [{ id: 1, views: 77 }] } });
        const nothing = await data(`mutation { insert_article(objects: [{title: "Alpha", published: true}], on_conflict: {constraint: ${adapter.titleConstraint}, update_columns: []}) { affected_rows } }`);
        expect(nothing).to.deep.equal({ insert_article: { affected_rows: 0 } });
        await data('mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {views: 10}) { id } }');
        // A conflict without on_conflict is a client error, and nothing is written.
        expect(await errorCode('mutation { insert_article(objects: [{title: "New", published: true}, {title: "Alpha", published: true}]) { affected_rows } }')).to.equal('constraint-violation');
        expect(await ids('{title: {_eq: "New"}}')).to.deep.equal([]);
      });

      it('holds inserts and updates to the role check, and writes only rows the role may', async () => {
        const perm = (type: string, permission: unknown) => ok({ type: `${p}_create_${type}_permission`, args: { source: SOURCE, table: table('article'), role: 'user', permission } });
        await perm('insert', { check: { author_id: { _eq: 'X-Svc-User-Id' } }, columns: ['title', 'author_id', 'published'] });
        await perm('update', { columns: ['title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, check: { title: { _nlike: 'bad%' } } });
        await perm('delete', { filter: { author_id: { _eq: 'X-Svc-User-Id' } } });
        const user = { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '3' };
        expect(await errorCode('mutation { insert_article(objects: [{title: "Nope", author_id: 1, published: true}]) { affected_rows } }', undefined, user)).to.equal('permission-error');
        const good = await data('mutation { insert_article(objects: [{title: "Mine", author_id: 3, published: true}]) { affected_rows returning { title } } }', undefined, user);
        expect(good).to.deep.equal({ insert_article: { affected_rows: 1, returning: [{ title: 'Mine' }] } });
        const user2 = { ...user, 'x-svc-user-id': '2' };
        expect(await errorCode('mutation { update_article(where: {}, _set: {title: "bad one"}) { affected_rows } }', undefined, user2)).to.equal('permission-error');
        expect(await ids('{title: {_eq: "bad one"}}')).to.deep.equal([]);
        const upd = await data('mutation { update_article(where: {}, _set: {title: "Mine2"}) { affected_rows } }', undefined, user2);
        expect(upd).to.deep.equal({ update_article: { affected_rows: 1 } });
        await data('mutation { update_article_by_pk(pk_columns: {id: 3}, _set: {title: "Gamma"}) { id } }');
        const del = await data('mutation { delete_article(where: {title: {_eq: "Mine"}}) { affected_rows } }', undefined, user);
        expect(del).to.deep.equal({ delete_article: { affected_rows: 1 } });
        expect(await ids('{}')).to.deep.equal([1, 2, 3, 4]);
      });
    } else {
      it('has no mutation root fields', async () => {
        expect(await errorCode('mutation { delete_article(where: {}) { affected_rows } }')).to.equal('validation-failed');
      });
    }

    it('round-trips its metadata: export, replace, same answers', async () => {
      const q = '{ author(order_by: {id: asc}) { name articles(order_by: {id: asc}) { title writer { id } } } }';
      const before = await data(q);
      const exported = await meta({ type: 'export_metadata', args: {} });
      await ok({ type: 'replace_metadata', args: { ...exported.body, sources: (exported.body['sources'] as Array<{ name: string }>).filter((s) => s.name !== SOURCE) } });
      expect(await errorCode(q)).to.equal('validation-failed');
      await ok({ type: 'replace_metadata', args: exported.body });
      expect((await meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported.body);
      expect(await data(q)).to.deep.equal(before);
      expect(await data('{ article(order_by: {id: asc}) { id } }', undefined, { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '2' })).to.deep.equal({ article: [{ id: 3 }] });
    });

    it('refuses bad input with coded errors and treats injection attempts as data', async () => {
      expect(await errorCode('{ article(where: {nope: {_eq: 1}}) { id } }')).to.equal('validation-failed');
      expect(await errorCode('{ article(where: {id: {_eq: "abc"}}) { id } }')).to.equal('validation-failed');
      expect(await errorCode('{ article { id nope } }')).to.equal('validation-failed');
      for (const evil of ["x'; DROP TABLE article; --", 'x`; DROP TABLE article; --', 'x"; DROP TABLE article; --', "\\'; SELECT 1; --"]) {
        expect(await ids(`{title: {_eq: ${JSON.stringify(evil)}}}`)).to.deep.equal([]);
        expect(await ids(`{title: {_in: [${JSON.stringify(evil)}]}}`)).to.deep.equal([]);
        const v = await data('query ($t: String) { article(where: {title: {_ilike: $t}}) { id } }', { t: evil });
        expect(v['article']).to.deep.equal([]);
      }
      const badName = await meta({ type: `${p}_track_table`, args: { source: SOURCE, table: table('article`; DROP TABLE article; --') } });
      expect(badName.status).to.equal(400);
      const badColumn = await meta({
        type: `${p}_create_select_permission`,
        args: { source: SOURCE, table: table('article'), role: 'evil', permission: { columns: ['id`, (SELECT 1) AS `x'], filter: {} } },
      });
      expect(badColumn.status).to.equal(400);
      const badSource = await meta({ type: `${p}_add_source`, args: { name: 'bad', configuration: { connection_info: 5 } } });
      expect(badSource.status).to.equal(400);
      expect(await ids('{}')).to.deep.equal([1, 2, 3, 4]);
    });
  });
}
