import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { call, graphql, metadata } from '../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './read-api/fixture.js';

const run = promisify(execFile);

/** Runs SQL the way an admin would paste it: through psql, one unaligned text value back. */
async function psqlValue(url: string, sql: string): Promise<unknown> {
  const { stdout } = await run('psql', [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
  return JSON.parse(stdout);
}

const explain = (f: ReadApiFixture, body: unknown, headers: Record<string, string> = {}) =>
  call<any>(f.engine, '/v1/graphql/explain', body, headers); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('POST /v1/graphql/explain (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('explain');
    // Permissions are written straight into the table entries, as the export format has them.
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    const tables = exported.body.sources[0].tables as Array<{ table: { name: string }; select_permissions?: unknown[] }>;
    tables.find((t) => t.table.name === 'article')!.select_permissions = [
      { role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } },
    ];
    const res = await metadata(f.engine, { type: 'replace_metadata', args: exported.body });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  const QUERY = `query Q($min: Int!) {
    author(where: {articles: {rating: {_gte: $min}}}, order_by: {id: asc}) { id name articles(order_by: {id: asc}) { title } }
    n: article_aggregate(where: {rating: {_gte: $min}}) { aggregate { count } }
    __typename
  }`;

  it('answers the reference shape: one {field, sql, plan} per root field, in order', async () => {
    const res = await explain(f, { query: { query: QUERY, variables: { min: 5 }, operationName: 'Q' } });
    expect(res.status).to.equal(200);
    expect(res.body.map((x: { field: string }) => x.field)).to.deep.equal(['author', 'n', '__typename']);
    for (const entry of res.body.slice(0, 2)) {
      expect(entry.sql).to.be.a('string').and.not.match(/\$\d/);
      expect(entry.plan).to.be.an('array').that.is.not.empty;
      for (const line of entry.plan) expect(line).to.be.a('string');
    }
    expect(res.body[2]).to.deep.equal({ field: '__typename', sql: null, plan: null });
  });

  it('gives SQL that, run with psql, returns the same data as the GraphQL query', async () => {
    const variables = { min: 4 };
    const [plans, gql] = await Promise.all([
      explain(f, { query: { query: QUERY, variables } }),
      graphql(f.engine, QUERY, variables),
    ]);
    const data = dataOf(gql);
    expect(await psqlValue(f.db.url, plans.body[0].sql)).to.deep.equal(data.author);
    expect(await psqlValue(f.db.url, plans.body[1].sql)).to.deep.equal(data.n);
    expect(data.author).to.not.be.empty;
  });

  it('accepts the plain GraphQL request body too', async () => {
    const res = await explain(f, { query: '{ author_by_pk(id: 2) { name } }' });
    expect(res.status).to.equal(200);
    expect(await psqlValue(f.db.url, res.body[0].sql)).to.deep.equal({ name: 'Alan Turing' });
  });

  it('explains as the role and session variables of `user`, with the session written in', async () => {
    const query = '{ article(order_by: {id: asc}) { id title } }';
    const res = await explain(f, { query: { query }, user: { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' } });
    expect(res.status).to.equal(200);
    const fromSql = await psqlValue(f.db.url, res.body[0].sql);
    const data = dataOf(await graphql(f.engine, query, {}, { 'x-svc-role': 'user', 'x-svc-user-id': '2' }));
    expect(fromSql).to.deep.equal(data.article);
    expect(data.article.map((a: { id: number }) => a.id)).to.deep.equal([3, 4, 5]);
  });

  it('refuses non-admin callers', async () => {
    const res = await explain(f, { query: { query: '{ author { id } }' } }, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'access-denied', error: 'restricted access : admin only' });
  });

  it('explains queries only, as the reference does', async function () {
    const res = await explain(f, { query: { query: 'mutation { insert_author_one(object: {name: "x"}) { id } }' } });
    if (res.body?.code === 'validation-failed') this.skip(); // no mutation root in this build
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'invalid-params', error: 'only queries can be explained' });
  });

  it('reports invalid queries and variables as the GraphQL API does', async () => {
    const bad = await explain(f, { query: { query: '{ nope { id } }' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal('validation-failed');
    const vars = await explain(f, { query: { query: QUERY, variables: { min: 'x' } } });
    expect(vars.status).to.equal(400);
    expect(vars.body.code).to.equal('validation-failed');
  });
});
