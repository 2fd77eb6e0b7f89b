import { expect } from 'chai';
import { makeSession, ADMIN_SESSION, type Session } from '../../../core/auth/session.js';
import type { GraphQLExecutor, ExecutionMeta } from '../../../core/graphql/execute/executor.js';
import type { GraphQLRequest } from '../../../core/graphql/execute/request.js';
import { isEngineError } from '../../../core/errors.js';
import { startReadApiFixture, type ReadApiFixture } from './fixture.js';
import { metadata } from '../../helpers/engine.js';

type Outcome = { body: string } | { error: { code: string; message: string; path: string | undefined; status: number } };

async function outcome(run: () => string | Promise<string>): Promise<Outcome> {
  try {
    return { body: await run() };
  } catch (e) {
    if (!isEngineError(e)) throw e;
    return { error: { code: e.code, message: e.message, path: e.path, status: e.status } };
  }
}

const request = (query: string, variables?: Record<string, unknown>, operationName?: string): GraphQLRequest => ({
  query,
  variables: variables ?? {},
  operationName: operationName ?? null,
});

/**
 * executeNow (synchronous on plan-cache hits) must answer exactly as execute: same text, same
 * errors, on first requests (plan-cache misses) and repeated ones, for every kind of operation.
 */
describe('graphql executor: executeNow answers as execute (integration)', function () {
  let f: ReadApiFixture;
  let executor: GraphQLExecutor;
  before(async () => {
    f = await startReadApiFixture('execnow');
    executor = f.engine.kernel.container.resolve<GraphQLExecutor>('graphqlExecutor');
  });
  after(async () => f?.close());

  const cases: Array<[string, GraphQLRequest, Session?, Partial<ExecutionMeta>?]> = [
    ['__typename only', request('query Q0 { __typename }')],
    ['aliased __typename twice', request('{ a: __typename b: __typename }')],
    ['a pk lookup', request('query Q1($id: Int!) { author_by_pk(id: $id) { id name email } }', { id: 2 })],
    ['a pk lookup that finds nothing', request('query($id: Int!) { author_by_pk(id: $id) { id } }', { id: 999 })],
    ['two database fields and __typename', request('{ __typename author(order_by: {id: asc}, limit: 2) { id } article(limit: 1, order_by: {id: asc}) { title author { name } } }')],
    ['introspection with data', request('{ __type(name: "author") { name } author(limit: 1, order_by: {id: asc}) { id } }')],
    ['an unknown field', request('{ author { nope } }')],
    ['a missing variable', request('query($id: Int!) { author_by_pk(id: $id) { id } }', {})],
    ['a variable of the wrong kind', request('query($id: Int!) { author_by_pk(id: $id) { id } }', { id: 'x' })],
    ['an unexpected variable', request('{ __typename }', { extra: 1 })],
    ['a subscription', request('subscription { author { id } }')],
    ['several operations, none named', request('query A { __typename } query B { __typename }')],
    ['several operations, one named', request('query A { __typename } query B { author(limit: 1, order_by: {id: asc}) { id } }', undefined, 'B')],
    ['a mutation over GET', request('mutation { delete_comment(where: {id: {_eq: -1}}) { affected_rows } }'), ADMIN_SESSION, { queryOnly: true }],
    ['a mutation', request('mutation { delete_comment(where: {id: {_eq: -1}}) { affected_rows } }')],
    ['a database error', request('{ author(where: {born: {_gt: "not a date"}}) { id } }')],
    ['a role without the table', request('{ author { id } }'), makeSession('nobody', { 'x-svc-user-id': '1' })],
  ];

  for (const [name, req, session = ADMIN_SESSION, meta = {}] of cases) {
    it(name, async () => {
      const asyncMeta: ExecutionMeta = { endpoint: 'graphql', ip: '', operationCount: 1, ...meta };
      const nowMeta: ExecutionMeta = { endpoint: 'graphql', ip: '', operationCount: 1, ...meta };
      // First on a cold plan cache (the miss path), then on hits.
      const cold = await outcome(() => executor.executeNow(req, session, nowMeta));
      const expected = await outcome(() => executor.execute(req, session, asyncMeta));
      const warm = await outcome(() => executor.executeNow(req, session, nowMeta));
      expect(cold).to.deep.equal(expected);
      expect(warm).to.deep.equal(expected);
      expect(nowMeta.operationType).to.equal(asyncMeta.operationType);
    });
  }

  it('answers a __typename-only plan-cache hit without a promise', async () => {
    const req = request('query Sync { __typename }');
    await executor.execute(req, ADMIN_SESSION);
    expect(executor.executeNow(req, ADMIN_SESSION)).to.equal('{"data":{"__typename":"query_root"}}');
  });
});

/**
 * With API limits set, executeNow runs the limit pass synchronously: a refusal is thrown at once
 * (no promise) with execute's error, and a request under the limits still answers without one.
 */
describe('graphql executor: executeNow with API limits set (integration)', function () {
  let f: ReadApiFixture;
  let executor: GraphQLExecutor;
  const reader = makeSession('reader', { 'x-svc-user-id': '1' });
  before(async () => {
    f = await startReadApiFixture('execnow_limits');
    executor = f.engine.kernel.container.resolve<GraphQLExecutor>('graphqlExecutor');
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } } },
        { type: 'pg_create_select_permission', args: { table: 'article', role: 'reader', permission: { columns: ['id', 'title'], filter: {} } } },
        { type: 'set_api_limits', args: { depth_limit: { global: 2 }, node_limit: { global: 10 } } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => f?.close());

  const meta = (): ExecutionMeta => ({ endpoint: 'graphql', ip: '', operationCount: 1 });

  it('refuses an over-limit query synchronously with execute’s error', async () => {
    const req = request('{ author { articles { author { id } } } }');
    const expected = await outcome(() => executor.execute(req, reader, meta()));
    expect(expected).to.have.nested.property('error.code', 'depth-limit-exceeded');
    let thrown: unknown;
    try {
      executor.executeNow(req, reader, meta());
    } catch (e) {
      thrown = e;
    }
    expect(thrown, 'a synchronous throw, not a rejected promise').to.satisfy(isEngineError);
    expect(await outcome(() => executor.executeNow(req, reader, meta()))).to.deep.equal(expected);
  });

  it('answers a query under the limits as execute does, and __typename without a promise', async () => {
    const req = request('{ author(order_by: {id: asc}, limit: 2) { id articles(order_by: {id: asc}) { title } } }');
    const expected = await outcome(() => executor.execute(req, reader, meta()));
    expect(expected).to.have.property('body');
    expect(await outcome(() => executor.executeNow(req, reader, meta()))).to.deep.equal(expected);
    const typename = request('query Limited { __typename }');
    await executor.execute(typename, reader, meta());
    expect(executor.executeNow(typename, reader, meta())).to.equal('{"data":{"__typename":"query_root"}}');
  });
});
