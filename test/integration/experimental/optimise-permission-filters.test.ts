import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';

/**
 * `--experimental-features optimise_permission_filters`: two engines over one database and one
 * metadata, one with the feature. Every permission query answers the same on both; the SQL of a
 * relationship whose target filter goes back to the parent (`{author: <author's filter>}`) loses
 * that EXISTS with the feature.
 */
const USER_FILTER = { id: { _eq: 'X-Svc-User-Id' } };
const PERMISSIONS = [
  { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: USER_FILTER } } },
  // The article's filter is the author's, reached back through `author`: implied under author.articles.
  { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id', 'rating'], filter: { author: USER_FILTER } } } },
  // Not the same shape (an extra condition): never dropped.
  {
    type: 'pg_create_select_permission',
    args: { table: 'comment', role: 'user', permission: { columns: ['id', 'body', 'article_id'], filter: { _and: [{ article: { author: USER_FILTER } }, { id: { _gt: 0 } }] } } },
  },
  // A second role whose article filter is implied by the author's, and one whose filter differs from it.
  { type: 'pg_create_select_permission', args: { table: 'author', role: 'rated', permission: { columns: ['id', 'name'], filter: { rating: { _gte: 4 } } } } },
  { type: 'pg_create_select_permission', args: { table: 'article', role: 'rated', permission: { columns: ['id', 'title', 'author_id'], filter: { author: { rating: { _gte: 5 } } } } } },
];

const QUERIES = [
  '{ author(order_by: {id: asc}) { id name articles(order_by: {id: asc}) { id title comments(order_by: {id: asc}) { id body } } } }',
  '{ article(order_by: {id: asc}) { id title author { id name } } }',
  '{ author(order_by: {id: asc}) { articles(where: {rating: {_gte: 5}}, order_by: {id: asc}) { title } } }',
  '{ comment(order_by: {id: asc}) { id article { title author { name } } } }',
];

const ROLES: Array<Record<string, string>> = [
  { 'x-svc-role': 'user', 'x-svc-user-id': '1' },
  { 'x-svc-role': 'user', 'x-svc-user-id': '2' },
  { 'x-svc-role': 'user', 'x-svc-user-id': '4' },
  { 'x-svc-role': 'rated' },
];

const explainSql = async (engine: Engine, query: string, user: Record<string, string>): Promise<string> => {
  const res = await call<Array<{ sql: string }>>(engine, '/v1/graphql/explain', { query: { query }, user: { 'X-Svc-Role': user['x-svc-role'], 'X-Svc-User-Id': user['x-svc-user-id'] ?? '' } });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body[0]!.sql;
};

const count = (text: string, word: string): number => text.split(word).length - 1;

describe('optimise_permission_filters (integration)', function () {
  this.timeout(30_000);
  let f: ReadApiFixture;
  let optimised: Engine;
  before(async () => {
    f = await startReadApiFixture('optperm');
    const res = await metadata(f.engine, { type: 'bulk', args: PERMISSIONS });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    optimised = await startTestEngine({ databaseUrl: f.db.url, experimentalFeatures: ['optimise_permission_filters'] });
  });
  after(async () => {
    await optimised?.close();
    await f?.close();
  });

  it('boots with the feature (it is built, not refused)', async () => {
    const res = await graphql(optimised, '{ author { id } }', {}, ROLES[0]);
    expect(dataOf(res).author).to.deep.equal([{ id: 1 }]);
  });

  it('answers every permission query exactly as without it', async () => {
    let nonEmpty = 0;
    for (const user of ROLES) {
      for (const query of QUERIES) {
        const [plain, opt] = await Promise.all([graphql(f.engine, query, {}, user), graphql(optimised, query, {}, user)]);
        expect(opt.body, `${user['x-svc-role']} ${query}`).to.deep.equal(plain.body);
        if (!plain.body.errors && JSON.stringify(plain.body).includes('title')) nonEmpty++;
      }
    }
    // The comparison is over real rows, not empty answers.
    expect(nonEmpty).to.be.greaterThan(8);
  });

  it('leaves out the implied filter of author.articles, and only that one', async () => {
    const user = ROLES[0]!;
    const query = QUERIES[0]!;
    const [plain, opt] = await Promise.all([explainSql(f.engine, query, user), explainSql(optimised, query, user)]);
    // Without: articles repeat the author's filter through EXISTS (… "author" …); comments keep theirs.
    expect(count(opt, 'EXISTS')).to.be.lessThan(count(plain, 'EXISTS'));
    expect(count(plain, 'EXISTS') - count(opt, 'EXISTS')).to.equal(1);
    expect(opt).to.not.equal(plain);
  });

  it('keeps a target filter that is not implied (different condition on the parent)', async () => {
    const user = ROLES[3]!;
    const query = '{ author(order_by: {id: asc}) { id articles(order_by: {id: asc}) { id } } }';
    const [plain, opt] = await Promise.all([explainSql(f.engine, query, user), explainSql(optimised, query, user)]);
    expect(opt).to.equal(plain);
    const data = dataOf(await graphql(optimised, query, {}, user));
    // Author 2 (rating 4) is visible, but its articles need rating 5: none.
    expect(data.author.find((a: { id: number }) => a.id === 2).articles).to.deep.equal([]);
    expect(data.author.find((a: { id: number }) => a.id === 1).articles).to.have.length(2);
  });

  it('keeps the filter of an object relationship leading away from the implied shape', async () => {
    const user = ROLES[0]!;
    const query = QUERIES[1]!;
    expect(await explainSql(optimised, query, user)).to.equal(await explainSql(f.engine, query, user));
  });
});
