/**
 * Roles whose permissions shape the schema alike share one GraphQLSchema object
 * (core/schema-cache/role-shape.ts), each with its own planners. These tests pin that sharing
 * never lets one role's row filters, limits, checks or presets serve another: at the root, in
 * nested relationships, aggregates, mutations and subscriptions; that a differently shaped role
 * gets its own schema and introspection; and that a metadata change splits or joins the sharing.
 *
 * `ra` and `rb` have the same shape with different filters (`ra`: author 1's rows, `rb`: author
 * 2's, and at most 2 comments); `rc` is `ra` with one more article column; `rd` is `ra` inserting one
 * more column (same read types, its own schema). `ra` and `rd` select alike down to their filters:
 * they also share their table views, read planners and read root types.
 */
import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import type { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
import { metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { Received, transportClient } from '../subscriptions/fixture.js';
import { as, queryAs } from './fixture.js';

const perm = (kind: string, table: string, role: string, permission: Record<string, unknown>) => ({
  type: `pg_create_${kind}_permission`,
  args: { source: 'default', table, role, permission },
});

function rolePermissions(
  role: string,
  author: number,
  options: {
    articleColumns?: string[];
    commentLimit?: number;
    rating?: number;
    insertColumns?: string[];
  } = {},
) {
  const own = { author_id: { _eq: author } };
  return [
    perm('select', 'author', role, {
      columns: ['id', 'name'],
      filter: author === 1 ? {} : { id: { _neq: 1 } },
    }),
    perm('select', 'article', role, {
      columns: options.articleColumns ?? ['id', 'title', 'author_id', 'rating'],
      filter: own,
      allow_aggregations: true,
    }),
    perm('select', 'comment', role, {
      columns: ['id', 'body', 'article_id'],
      filter: { article: own },
      ...(options.commentLimit ? { limit: options.commentLimit } : {}),
    }),
    perm('insert', 'article', role, {
      columns: options.insertColumns ?? ['title', 'author_id'],
      check: own,
      set: { rating: options.rating ?? author },
    }),
    perm('update', 'article', role, {
      columns: ['title'],
      filter: own,
      check: own,
    }),
  ];
}

const BODY_COLUMNS = ['id', 'title', 'author_id', 'rating', 'body'];

describe('shared role schemas: one schema per shape, filters per role (integration)', function () {
  this.timeout(60_000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('perm_shared');
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        ...rolePermissions('ra', 1),
        ...rolePermissions('rb', 2, { commentLimit: 2 }),
        ...rolePermissions('rc', 1, { articleColumns: BODY_COLUMNS }),
        ...rolePermissions('rd', 1, {
          insertColumns: ['title', 'author_id', 'body'],
        }),
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  const schemaOf = async (role: string) => {
    const ref = f.engine.kernel.container.resolve<SchemaCacheRef>('schemaCacheRef');
    return (await ref.current.schemaFor(role)).schema;
  };
  const data = async (role: string, query: string, variables?: Record<string, unknown>) => {
    const body = await queryAs(f, as(role), query, variables);
    if (body.errors) throw new Error(`GraphQL errors as ${role}: ${JSON.stringify(body.errors)}`);
    return body.data;
  };

  it('gives roles of one shape one schema object, and other shapes and admin their own', async () => {
    const [ra, rb, rc, admin] = await Promise.all([schemaOf('ra'), schemaOf('rb'), schemaOf('rc'), schemaOf('admin')]);
    expect(rb).to.equal(ra);
    expect(rc).to.not.equal(ra);
    expect(admin).to.not.equal(ra);
    expect(admin).to.not.equal(rc);
  });

  it('shares the read types of roles whose writes differ, and keeps their write types apart', async () => {
    const [ra, rb, rc, rd] = await Promise.all([schemaOf('ra'), schemaOf('rb'), schemaOf('rc'), schemaOf('rd')]);
    expect(rd).to.not.equal(ra);
    for (const name of ['article', 'article_bool_exp', 'author', 'comment_order_by', 'article_aggregate']) {
      expect(rd.getType(name), name).to.equal(ra.getType(name));
      expect(rc.getType(name), name).to.not.equal(ra.getType(name));
    }
    expect(rb.getType('article_insert_input')).to.equal(ra.getType('article_insert_input'));
    expect(rd.getType('article_insert_input')).to.not.equal(ra.getType('article_insert_input'));
    const fields = (role: string) => data(role, '{ __type(name: "article_insert_input") { inputFields { name } } }');
    expect((await fields('ra')).__type.inputFields).to.deep.equal([{ name: 'author_id' }, { name: 'title' }]);
    expect((await fields('rd')).__type.inputFields).to.deep.equal([{ name: 'author_id' }, { name: 'body' }, { name: 'title' }]);
    const insert = 'mutation { insert_article_one(object: {title: "with body", author_id: 1, body: "b"}) { id } }';
    expect((await queryAs(f, as('ra'), insert)).errors?.[0]?.extensions.code).to.equal('validation-failed');
    expect(await data('rd', '{ article(order_by: {id: asc}) { id } }')).to.deep.equal({ article: [{ id: 1 }, { id: 2 }] });
  });

  it('shares the views, read planners and read root types of roles selecting alike down to their filters', async () => {
    const ref = f.engine.kernel.container.resolve<SchemaCacheRef>('schemaCacheRef');
    const [ra, rb, rc, rd] = await Promise.all(['ra', 'rb', 'rc', 'rd'].map((role) => ref.current.schemaFor(role)));
    const planner = (s: typeof ra, root: 'query' | 'mutation' | 'subscription', field: string) => s!.roots[root].get(field)!.planner;
    for (const field of ['article', 'article_by_pk', 'article_aggregate', 'comment']) {
      expect(planner(rd, 'query', field), field).to.equal(planner(ra, 'query', field));
      expect(planner(rb, 'query', field), field).to.not.equal(planner(ra, 'query', field));
    }
    expect(planner(rd, 'subscription', 'article_stream')).to.equal(planner(ra, 'subscription', 'article_stream'));
    expect(planner(rd, 'mutation', 'insert_article')).to.not.equal(planner(ra, 'mutation', 'insert_article'));
    // rd's schema is its own (its insert type differs) over ra's query and subscription roots.
    expect(rd!.schema).to.not.equal(ra!.schema);
    expect(rd!.schema.getQueryType()).to.equal(ra!.schema.getQueryType());
    expect(rd!.schema.getSubscriptionType()).to.equal(ra!.schema.getSubscriptionType());
    expect(rd!.schema.getMutationType()).to.not.equal(ra!.schema.getMutationType());
    expect(rc!.schema.getQueryType()).to.not.equal(ra!.schema.getQueryType());
    // Each still reads through its own filters and writes through its own columns.
    expect(await data('rd', '{ article(order_by: {id: asc}) { id } }')).to.deep.equal(await data('ra', '{ article(order_by: {id: asc}) { id } }'));
    expect(await data('rb', '{ article(order_by: {id: asc}) { id } }')).to.not.deep.equal(await data('ra', '{ article(order_by: {id: asc}) { id } }'));
  });

  it('applies each role its own row filter and limit at the root', async () => {
    const q = '{ article(order_by: {id: asc}) { id } comment(order_by: {id: asc}) { id } }';
    expect(await data('ra', q)).to.deep.equal({
      article: [{ id: 1 }, { id: 2 }],
      comment: [{ id: 1 }, { id: 2 }],
    });
    // rb: author 2's articles; their comments capped at 2 by rb's limit.
    expect(await data('rb', q)).to.deep.equal({
      article: [{ id: 3 }, { id: 4 }, { id: 5 }],
      comment: [{ id: 3 }, { id: 4 }],
    });
    expect(await data('rc', q)).to.deep.equal({
      article: [{ id: 1 }, { id: 2 }],
      comment: [{ id: 1 }, { id: 2 }],
    });
  });

  it('applies each role its own filters in nested relationships, object and array, with where and order_by', async () => {
    const q = '{ author(order_by: {id: asc}) { id articles(order_by: {id: desc}, where: {rating: {_gte: 4}}) { id comments(order_by: {id: asc}) { id } } } }';
    expect(await data('ra', q)).to.deep.equal({
      author: [
        {
          id: 1,
          articles: [
            { id: 2, comments: [] },
            { id: 1, comments: [{ id: 1 }, { id: 2 }] },
          ],
        },
        { id: 2, articles: [] },
        { id: 3, articles: [] },
        { id: 4, articles: [] },
        { id: 5, articles: [] },
      ],
    });
    expect(await data('rb', q)).to.deep.equal({
      author: [
        {
          id: 2,
          articles: [
            { id: 4, comments: [] },
            { id: 3, comments: [{ id: 3 }, { id: 4 }] },
          ],
        },
        { id: 3, articles: [] },
        { id: 4, articles: [] },
        { id: 5, articles: [] },
      ],
    });
    // An object relationship to a row outside the role's filter reads null.
    const up = '{ comment(order_by: {id: asc}) { id article { id author { id } } } }';
    expect(await data('ra', up)).to.deep.equal({
      comment: [
        { id: 1, article: { id: 1, author: { id: 1 } } },
        { id: 2, article: { id: 1, author: { id: 1 } } },
      ],
    });
    expect(await data('rb', up)).to.deep.equal({
      comment: [
        { id: 3, article: { id: 3, author: { id: 2 } } },
        { id: 4, article: { id: 3, author: { id: 2 } } },
      ],
    });
    // The same selection through the same plan text, alternating roles: no plan serves the other.
    const one = '{ author(where: {id: {_eq: 1}}) { id articles { id } } }';
    expect(await data('rb', one)).to.deep.equal({ author: [] });
    expect(await data('ra', one)).to.deep.equal({
      author: [{ id: 1, articles: [{ id: 1 }, { id: 2 }] }],
    });
    expect(await data('rb', one)).to.deep.equal({ author: [] });
  });

  it('computes aggregates over each role own rows, at the root and nested', async () => {
    const q =
      '{ article_aggregate { aggregate { count } } author(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id articles_aggregate { aggregate { count } } } }';
    expect(await data('ra', q)).to.deep.equal({
      article_aggregate: { aggregate: { count: 2 } },
      author: [
        { id: 1, articles_aggregate: { aggregate: { count: 2 } } },
        { id: 2, articles_aggregate: { aggregate: { count: 0 } } },
      ],
    });
    expect(await data('rb', q)).to.deep.equal({
      article_aggregate: { aggregate: { count: 3 } },
      author: [{ id: 2, articles_aggregate: { aggregate: { count: 3 } } }],
    });
  });

  it('answers each role its own introspection', async () => {
    const q = '{ __type(name: "article") { fields { name } } }';
    const names = async (role: string) => ((await data(role, q)).__type.fields as Array<{ name: string }>).map((x) => x.name);
    expect(await names('ra')).to.deep.equal(await names('rb'));
    expect(await names('ra')).to.not.include('body');
    expect(await names('rc')).to.include('body');
    const body = await queryAs(f, as('ra'), '{ article { body } }');
    expect(body.errors?.[0]?.extensions.code).to.equal('validation-failed');
    expect(await data('rc', '{ article(order_by: {id: asc}) { body } }')).to.deep.equal({
      article: [{ body: 'the engine weaves algebraic patterns' }, { body: 'imagination is the discovering faculty' }],
    });
  });

  it('streams each subscriber its own role rows', async () => {
    const url = `ws://127.0.0.1:${f.engine.port}/v1/graphql`;
    const clients: Client[] = [transportClient(url, as('ra')), transportClient(url, as('rb'))];
    try {
      const subscribe = (c: Client, query: string) => {
        const r = new Received<{ data: unknown }>();
        c.subscribe({ query }, r.sink);
        return r;
      };
      const nested = 'subscription { author(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id articles(order_by: {id: asc}) { id } } }';
      const count = 'subscription { article_aggregate { aggregate { count } } }';
      const [raNested, rbNested, raCount, rbCount] = [
        subscribe(clients[0]!, nested),
        subscribe(clients[1]!, nested),
        subscribe(clients[0]!, count),
        subscribe(clients[1]!, count),
      ];
      expect((await raNested.nth(0)).data).to.deep.equal({
        author: [
          { id: 1, articles: [{ id: 1 }, { id: 2 }] },
          { id: 2, articles: [] },
        ],
      });
      expect((await rbNested.nth(0)).data).to.deep.equal({
        author: [{ id: 2, articles: [{ id: 3 }, { id: 4 }, { id: 5 }] }],
      });
      expect((await raCount.nth(0)).data).to.deep.equal({
        article_aggregate: { aggregate: { count: 2 } },
      });
      expect((await rbCount.nth(0)).data).to.deep.equal({
        article_aggregate: { aggregate: { count: 3 } },
      });
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('checks and presets each role its own values in mutations', async () => {
    const insert = 'mutation ($a: Int!) { insert_article_one(object: {title: "shared", author_id: $a}) { author_id rating } }';
    expect(await data('ra', insert, { a: 1 })).to.deep.equal({
      insert_article_one: { author_id: 1, rating: 1 },
    });
    expect(await data('rb', insert, { a: 2 })).to.deep.equal({
      insert_article_one: { author_id: 2, rating: 2 },
    });
    for (const [role, a] of [
      ['ra', 2],
      ['rb', 1],
    ] as const) {
      const body = await queryAs(f, as(role), insert, { a });
      expect(body.errors?.[0]?.extensions.code, `${role} inserting for author ${a}`).to.equal('permission-error');
    }
    const update = 'mutation { update_article(where: {id: {_in: [1, 3]}}, _set: {title: "renamed"}) { affected_rows returning { id } } }';
    expect(await data('ra', update)).to.deep.equal({
      update_article: { affected_rows: 1, returning: [{ id: 1 }] },
    });
    expect(await data('rb', update)).to.deep.equal({
      update_article: { affected_rows: 1, returning: [{ id: 3 }] },
    });
  });

  it('splits and joins the sharing when a permission changes the shape', async () => {
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        {
          type: 'pg_drop_select_permission',
          args: { source: 'default', table: 'article', role: 'rb' },
        },
        perm('select', 'article', 'rb', {
          columns: BODY_COLUMNS,
          filter: { author_id: { _eq: 2 } },
          allow_aggregations: true,
        }),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const [ra, rb, rc] = await Promise.all([schemaOf('ra'), schemaOf('rb'), schemaOf('rc')]);
    expect(rb).to.not.equal(ra);
    // rb now has rc's shape (rc's filters are ra's): they share, each with its own rows.
    expect(rb).to.equal(rc);
    expect(await data('rb', '{ article(where: {id: {_eq: 4}}) { id body } }')).to.deep.equal({ article: [{ id: 4, body: 'can machines think?' }] });
    expect(await data('rc', '{ article(where: {id: {_eq: 4}}) { id body } }')).to.deep.equal({ article: [] });
    const body = await queryAs(f, as('ra'), '{ article { body } }');
    expect(body.errors?.[0]?.extensions.code).to.equal('validation-failed');
  });
});
