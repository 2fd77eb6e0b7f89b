/**
 * The Relay API over HTTP against a real PostgreSQL: global ids round-trip through node(id:),
 * connections page forward and backward with the reference's cursors and pageInfo, permissions
 * apply as on /v1/graphql, errors are the reference's, and each root field is one statement.
 */
import { expect } from 'chai';
import { ADMIN, asRole, cursor, nodeId, startRelayFixture, type RelayFixture } from './fixture.js';
import type { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import { makeSession } from '../../../core/auth/session.js';

interface Page<N> {
  edges: Array<{ cursor: string; node: N }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}
type Article = { id: string; title: string; rating: number | null };

const PAGE = 'edges { cursor node { id title rating } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const titles = (p: Page<Article>): string[] => p.edges.map((e) => e.node.title);

describe('relay: /v1beta1/relay over HTTP (integration)', function () {
  this.timeout(60_000);
  let f: RelayFixture;
  const page = async (args: string, headers: Record<string, string> = ADMIN, variables?: Record<string, unknown>): Promise<Page<Article>> => {
    const r = await f.relay<{ data: { article_connection: Page<Article> }; errors?: unknown }>(`query${variables ? '($first: Int, $after: String)' : ''} { article_connection${args} { ${PAGE} } }`, variables, headers);
    expect(r.body.errors, JSON.stringify(r.body)).to.equal(undefined);
    return r.body.data.article_connection;
  };
  const errorOf = async (query: string, headers: Record<string, string> = ADMIN, variables?: Record<string, unknown>): Promise<{ message: string; extensions: { code: string; path: string } }> => {
    const r = await f.relay<{ errors?: Array<{ message: string; extensions: { code: string; path: string } }> }>(query, variables, headers);
    expect(r.status).to.equal(200);
    expect(r.body.errors, JSON.stringify(r.body)).to.be.an('array');
    return r.body.errors![0]!;
  };

  before(async () => {
    f = await startRelayFixture('relay');
  });
  after(async () => {
    await f?.close();
  });

  describe('global ids', () => {
    it('encodes the reference version-1 id and resolves it through node(id:)', async () => {
      const r = await f.relay('{ author_connection(first: 1) { edges { node { id name } } } }');
      const id = r.body.data.author_connection.edges[0].node.id as string;
      expect(id).to.equal('WzEsICJwdWJsaWMiLCAiYXV0aG9yIiwgMV0=');
      expect(Buffer.from(id, 'base64').toString()).to.equal('[1, "public", "author", 1]');
      const n = await f.relay('query ($id: ID!) { node(id: $id) { __typename id ... on author { name } ... on article { title } } }', { id });
      expect(n.body).to.deep.equal({ data: { node: { __typename: 'author', id, name: 'Ada' } } });
    });

    it('answers a row of another table through its fragment and named fragments on Node', async () => {
      const id = nodeId('article', 4);
      const n = await f.relay(`{ node(id: "${id}") { ...N ... on article { title author { id name } } } } fragment N on Node { id }`);
      expect(n.body).to.deep.equal({ data: { node: { id, title: 'b1', author: { id: nodeId('author', 2), name: 'Alan' } } } });
    });

    it('encodes composite and text keys in key order', async () => {
      const r = await f.relay('{ pair_connection(last: 1) { edges { cursor node { id v } } } }');
      const edge = r.body.data.pair_connection.edges[0];
      expect(edge.node.id).to.equal(nodeId('pair', 1, 'y'));
      expect(edge.cursor).to.equal(cursor({ a: 1, b: 'y' }));
      const n = await f.relay(`{ node(id: "${nodeId('pair', 1, 'x')}") { ... on pair { v } } }`);
      expect(n.body).to.deep.equal({ data: { node: { v: 10 } } });
      const missing = await errorOf(`{ node(id: "${nodeId('pair', 1)}") { id } }`);
      expect(missing.message).to.equal('invalid node id: primary key columns ["b"] are missing');
    });

    it('answers null for a missing row and refuses ids that are not ids', async () => {
      expect((await f.relay(`{ node(id: "${nodeId('author', 99)}") { id } }`)).body).to.deep.equal({ data: { node: null } });
      const bad = await errorOf('{ node(id: "bm90IGpzb24=") { id } }');
      expect(bad.extensions).to.deep.equal({ code: 'validation-failed', path: '$.selectionSet.node.args.id' });
      expect(bad.message).to.match(/^invalid node id: /);
      const version = await errorOf(`{ node(id: "${Buffer.from('[2, "public", "author", 1]').toString('base64')}") { id } }`);
      expect(version.message).to.equal('invalid node id: unsupported GUID version: 2');
      const table = await errorOf(`{ node(id: "${nodeId('nope', 1)}") { id } }`);
      expect(table.message).to.equal('invalid node id: no such table found: "public.nope"');
      const short = await errorOf(`{ node(id: "${Buffer.from('[1, "public", "author"]').toString('base64')}") { id } }`);
      expect(short.message).to.equal('invalid node id: GUID version 1: expecting schema name, table name and at least one column value');
    });

    it('gives tables without a primary key no Node and no connection; no aggregates or by_pk fields', async () => {
      // `tag` is still a type (insert_tag returns its rows), but no Node.
      const types = await f.relay('{ __type(name: "tag") { interfaces { name } fields { name } } node: __type(name: "Node") { possibleTypes { name } } }');
      expect(types.body.data.__type).to.deep.equal({ interfaces: [], fields: [{ name: 'label' }] });
      expect(types.body.data.node.possibleTypes.map((t: { name: string }) => t.name).sort()).to.deep.equal(['article', 'author', 'pair']);
      expect((await errorOf('{ tag_connection { edges { cursor } } }')).message).to.equal("field 'tag_connection' not found in type: 'query_root'");
      expect((await errorOf('{ author_by_pk(id: 1) { name } }')).message).to.equal("field 'author_by_pk' not found in type: 'query_root'");
      expect((await errorOf('{ article_aggregate { aggregate { count } } }')).message).to.equal("field 'article_aggregate' not found in type: 'query_root'");
      expect((await errorOf('{ author { name } }')).message).to.equal("field 'author' not found in type: 'query_root'");
    });
  });

  describe('connections', () => {
    it('pages forward with first/after: cursors are the reference encoding of the order-by values', async () => {
      const p1 = await page('(first: 2)');
      expect(titles(p1)).to.deep.equal(['a1', 'a2']);
      expect(p1.edges[0]!.cursor).to.equal(cursor({ id: 1 }));
      expect(p1.pageInfo).to.deep.equal({ hasNextPage: true, hasPreviousPage: false, startCursor: cursor({ id: 1 }), endCursor: cursor({ id: 2 }) });
      const p2 = await page(`(first: 3, after: "${p1.pageInfo.endCursor}")`);
      expect(titles(p2)).to.deep.equal(['a3', 'b1', 'b2']);
      expect(p2.pageInfo.hasNextPage).to.equal(true);
      expect(p2.pageInfo.hasPreviousPage).to.equal(true);
      const p3 = await page(`(first: 3, after: "${p2.pageInfo.endCursor}")`);
      expect(titles(p3)).to.deep.equal(['c1']);
      expect(p3.pageInfo).to.deep.include({ hasNextPage: false, hasPreviousPage: true });
      const beyond = await page(`(first: 3, after: "${p3.pageInfo.endCursor}")`);
      expect(beyond).to.deep.equal({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
    });

    it('pages backward with last/before, answering in forward order', async () => {
      const p1 = await page('(last: 2)');
      expect(titles(p1)).to.deep.equal(['b2', 'c1']);
      expect(p1.pageInfo).to.deep.equal({ hasNextPage: false, hasPreviousPage: true, startCursor: cursor({ id: 5 }), endCursor: cursor({ id: 6 }) });
      const p2 = await page(`(last: 3, before: "${p1.pageInfo.startCursor}")`);
      expect(titles(p2)).to.deep.equal(['a2', 'a3', 'b1']);
      expect(p2.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: true });
      const p3 = await page(`(last: 3, before: "${p2.pageInfo.startCursor}")`);
      expect(titles(p3)).to.deep.equal(['a1']);
      expect(p3.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: false });
    });

    it('pages forward up to a cursor with first/before', async () => {
      const p = await page(`(first: 2, before: "${cursor({ id: 5 })}")`);
      expect(titles(p)).to.deep.equal(['a1', 'a2']);
      expect(p.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: false });
      const all = await page(`(first: 4, before: "${cursor({ id: 4 })}")`);
      expect(titles(all)).to.deep.equal(['a1', 'a2', 'a3']);
      // Nothing cut by `first`, but rows lie at and after the cursor.
      expect(all.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: false });
      const after = await page(`(last: 5, after: "${cursor({ id: 4 })}")`);
      expect(titles(after)).to.deep.equal(['b2', 'c1']);
      expect(after.pageInfo).to.deep.include({ hasNextPage: false, hasPreviousPage: true });
    });

    it('keeps cursors stable under order_by, NULLs included, and pages one row at a time through the same order', async () => {
      const all = await page('(order_by: [{rating: desc}, {title: asc}])');
      // desc puts NULLs first, as on /v1/graphql; the primary key ends every ordering.
      expect(titles(all)).to.deep.equal(['a2', 'a1', 'b2', 'b1', 'a3', 'c1']);
      expect(all.edges[0]!.cursor).to.equal(cursor({ rating: null, title: 'a2', id: 2 }));
      expect(all.pageInfo).to.deep.include({ hasNextPage: false, hasPreviousPage: false });
      const seen: string[] = [];
      let after: string | null = null;
      for (let i = 0; i < 10; i++) {
        const p: Page<Article> = await page(`(first: 1, order_by: [{rating: desc}, {title: asc}]${after ? `, after: "${after}"` : ''})`);
        seen.push(...titles(p));
        if (!p.pageInfo.hasNextPage) break;
        after = p.pageInfo.endCursor;
      }
      expect(seen).to.deep.equal(titles(all));
      // Ascending puts NULLs last: paging backward one row at a time meets every row once.
      const asc = titles(await page('(order_by: {rating: asc})'));
      expect(asc).to.deep.equal(['c1', 'a3', 'b1', 'a1', 'b2', 'a2']);
      const backward: string[] = [];
      let before: string | null = null;
      for (let i = 0; i < 10; i++) {
        const p: Page<Article> = await page(`(last: 1, order_by: {rating: asc}${before ? `, before: "${before}"` : ''})`);
        backward.unshift(...titles(p));
        if (!p.pageInfo.hasPreviousPage) break;
        before = p.pageInfo.startCursor;
      }
      expect(backward).to.deep.equal(asc);
      const back = await page(`(last: 2, order_by: [{rating: desc}, {title: asc}], before: "${all.edges[2]!.cursor}")`);
      expect(titles(back)).to.deep.equal(['a2', 'a1']);
      expect(back.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: false });
    });

    it('orders through an object relationship, with the relationship in the cursor', async () => {
      const p = await page('(first: 2, order_by: [{author: {name: desc}}])');
      expect(titles(p)).to.deep.equal(['c1', 'b1']);
      expect(p.edges[0]!.cursor).to.equal(cursor({ author: { name: 'Grace' }, id: 6 }));
      const next = await page(`(first: 2, order_by: [{author: {name: desc}}], after: "${p.pageInfo.endCursor}")`);
      expect(titles(next)).to.deep.equal(['b2', 'a1']);
    });

    it('filters with where and distinct_on before paging', async () => {
      const p = await page('(where: {rating: {_gte: 4}}, first: 2)');
      expect(titles(p)).to.deep.equal(['a1', 'b1']);
      expect(p.pageInfo.hasNextPage).to.equal(true);
      const d = await f.relay<{ data: { article_connection: Page<{ title: string }> } }>(
        '{ article_connection(distinct_on: [rating], order_by: [{rating: asc}], first: 2) { edges { cursor node { title } } pageInfo { hasNextPage endCursor } } }',
      );
      const first = d.body.data.article_connection;
      expect(first.edges.map((e) => e.node.title)).to.deep.equal(['c1', 'a3']);
      const rest = await f.relay<{ data: { article_connection: Page<{ title: string }> } }>(
        `{ article_connection(distinct_on: [rating], order_by: [{rating: asc}], after: "${first.pageInfo.endCursor}") { edges { node { title } } } }`,
      );
      expect(rest.body.data.article_connection.edges.map((e) => e.node.title)).to.deep.equal(['b1', 'a1', 'a2']);
    });

    it('pages array relationships as <rel>_connection, per parent', async () => {
      const r = await f.relay(
        '{ author_connection { edges { node { name articles_connection(first: 2, order_by: {id: desc}) { edges { node { title } } pageInfo { hasNextPage hasPreviousPage } } } } } }',
      );
      const authors = r.body.data.author_connection.edges.map((e: { node: { name: string; articles_connection: Page<{ title: string }> } }) => [
        e.node.name,
        e.node.articles_connection.edges.map((x) => x.node.title),
        e.node.articles_connection.pageInfo.hasNextPage,
      ]);
      expect(authors).to.deep.equal([
        ['Ada', ['a3', 'a2'], true],
        ['Alan', ['b2', 'b1'], false],
        ['Grace', ['c1'], false],
      ]);
      expect((await errorOf('{ author_connection { edges { node { articles { title } } } } }')).message).to.equal("field 'articles' not found in type: 'author'");
    });

    it('pages the rows of a tracked function as <fn>_connection', async () => {
      const q = (extra: string): Promise<{ body: { data: { titled_connection: Page<Article> } } }> =>
        f.relay(`{ titled_connection(args: {prefix: "a"}, first: 2${extra}) { ${PAGE} } }`);
      const p1 = (await q('')).body.data.titled_connection;
      expect(titles(p1)).to.deep.equal(['a1', 'a2']);
      expect(p1.pageInfo).to.deep.include({ hasNextPage: true, hasPreviousPage: false });
      const p2 = (await q(`, after: "${p1.pageInfo.endCursor}"`)).body.data.titled_connection;
      expect(titles(p2)).to.deep.equal(['a3']);
      expect(p2.pageInfo).to.deep.include({ hasNextPage: false, hasPreviousPage: true });
      expect(p2.edges[0]!.node.id).to.equal(nodeId('article', 3));
    });

    it('takes first and after from variables, one plan for every page', async () => {
      const p1 = await page('(first: $first, after: $after)', ADMIN, { first: 2, after: null });
      expect(titles(p1)).to.deep.equal(['a1', 'a2']);
      const p2 = await page('(first: $first, after: $after)', ADMIN, { first: 1, after: p1.pageInfo.endCursor });
      expect(titles(p2)).to.deep.equal(['a3']);
    });

    it('compiles each root field to one statement that pages in SQL', async () => {
      const executor = f.engine.kernel.container.resolve<GraphQLExecutor>('relayExecutor');
      const plan = await executor.plan(
        {
          query: '{ article_connection(first: 2, after: "eyJpZCIgOiAxfQ==") { edges { node { id author { name } } } pageInfo { hasNextPage } } author_connection { edges { cursor } } }',
          variables: {},
          operationName: null,
        },
        makeSession('admin', {}),
      );
      expect(plan.fields.map((x) => x.field)).to.deep.equal(['article_connection', 'author_connection']);
      const text = plan.fields[0]!.db!.statement.text;
      expect(text).to.match(/LIMIT 3\b/);
      expect(text).to.include('row_number() OVER');
      expect(plan.fields[0]!.db!.values).to.deep.equal(['1']);
    });
  });

  describe('permissions', () => {
    it('applies the role row filter to connections and to node(id:)', async () => {
      const p = await page('', asRole('user', '1'));
      expect(titles(p)).to.deep.equal(['a1', 'a2', 'a3']);
      const own = await f.relay(`{ node(id: "${nodeId('article', 2)}") { id ... on article { title } } }`, undefined, asRole('user', '1'));
      expect(own.body).to.deep.equal({ data: { node: { id: nodeId('article', 2), title: 'a2' } } });
      const other = await f.relay(`{ node(id: "${nodeId('article', 4)}") { id } }`, undefined, asRole('user', '1'));
      expect(other.body).to.deep.equal({ data: { node: null } });
      const nested = await f.relay('{ author_connection(first: 2) { edges { node { name articles_connection { edges { node { title } } } } } } }', undefined, asRole('user', '2'));
      expect(nested.body.data.author_connection.edges.map((e: { node: { articles_connection: Page<{ title: string }> } }) => e.node.articles_connection.edges.length)).to.deep.equal([0, 2]);
    });

    it('caps the rows a role may page through at its limit', async () => {
      const p = await page('(first: 10)', asRole('capped'));
      expect(titles(p)).to.deep.equal(['a1', 'a2']);
      expect(p.pageInfo.hasNextPage).to.equal(false);
      const rest = await page(`(first: 10, after: "${p.pageInfo.endCursor}")`, asRole('capped'));
      expect(rest.edges).to.deep.equal([]);
      const tail = await page('(last: 1)', asRole('capped'));
      expect(titles(tail)).to.deep.equal(['a2']);
      expect(tail.pageInfo.hasPreviousPage).to.equal(true);
    });

    it('gives no id to a role that cannot select the primary key, and no ids of tables a role cannot select', async () => {
      expect((await errorOf('{ author_connection { edges { cursor } } }', asRole('no_id'))).message).to.equal(
        "field 'author_connection' not found in type: 'query_root'",
      );
      const unknown = await errorOf(`{ node(id: "${nodeId('author', 1)}") { id } }`, asRole('capped'));
      expect(unknown.message).to.equal('invalid node id: no such table found: "public.author"');
    });
  });

  describe('HTTP', () => {
    it('answers batches per request, errors with 200, and a non-JSON body with 415', async () => {
      const res = await fetch(f.engine.url + '/v1beta1/relay', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ADMIN },
        body: JSON.stringify([{ query: '{ author_connection(first: 1) { edges { cursor } } }' }, { query: '{ nope }' }]),
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = (await res.json()) as Array<Record<string, unknown>>;
      expect(body[0]).to.deep.equal({ data: { author_connection: { edges: [{ cursor: cursor({ id: 1 }) }] } } });
      expect(body[1]).to.have.property('errors');
      const text = await fetch(f.engine.url + '/v1beta1/relay', { method: 'POST', headers: { 'content-type': 'text/plain', ...ADMIN }, body: '{}' });
      expect(text.status).to.equal(415);
      const anonymous = await fetch(f.engine.url + '/v1beta1/relay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      expect(anonymous.status).to.equal(200);
      expect(((await anonymous.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).to.equal('access-denied');
    });
  });

  describe('errors', () => {
    it('refuses first with last and after with before, and bad cursors, as the reference', async () => {
      expect(await errorOf('{ article_connection(first: 1, last: 1) { edges { cursor } } }')).to.deep.equal({
        message: '"first" and "last" are not allowed at once',
        extensions: { code: 'validation-failed', path: '$.selectionSet.article_connection' },
      });
      expect((await errorOf(`{ article_connection(after: "${cursor({ id: 1 })}", before: "${cursor({ id: 3 })}") { edges { cursor } } }`)).message).to.equal(
        '"after" and "before" are not allowed at once',
      );
      expect((await errorOf('{ article_connection(after: "not a cursor") { edges { cursor } } }')).message).to.equal('the "after" or "before" cursor is invalid');
      // A cursor of another ordering lacks the order-by values.
      expect((await errorOf(`{ article_connection(order_by: {title: asc}, after: "${cursor({ id: 1 })}") { edges { cursor } } }`)).message).to.equal(
        'the "after" or "before" cursor is invalid',
      );
      expect((await errorOf('{ article_connection(first: -1) { edges { cursor } } }')).extensions.code).to.equal('not-supported');
    });
  });

  describe('mutations', () => {
    it('exposes the ordinary mutations with Relay row types: returning carries global ids', async () => {
      const r = await f.relay('mutation { insert_article(objects: [{title: "new", author_id: 2}]) { affected_rows returning { id title author { id } } } }');
      const row = r.body.data.insert_article.returning[0];
      expect(Buffer.from(row.id, 'base64').toString()).to.match(/^\[1, "public", "article", \d+\]$/);
      expect(row.author.id).to.equal(nodeId('author', 2));
      const gone = await f.relay(`mutation { delete_article(where: {title: {_eq: "new"}}) { affected_rows } }`);
      expect(gone.body).to.deep.equal({ data: { delete_article: { affected_rows: 1 } } });
    });
  });
});
