import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloGateway, IntrospectAndCompose } from '@apollo/gateway';
import { buildSchema, graphql as execute, parse, type OperationDefinitionNode } from 'graphql';
import { metadata } from '../../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../../../integration/read-api/fixture.js';

/**
 * A real Apollo gateway (@apollo/gateway, IntrospectAndCompose) in front of two subgraphs in this
 * process: the engine, and a small hand-written `reviews` subgraph whose reviews point at the
 * engine's `author` entity. The gateway composes both from `_service { sdl }` and resolves each
 * review's author through the engine's `_entities`, as the role the gateway forwards.
 */
const REVIEWS_SDL = `
type review { id: Int! body: String! author: author }
extend type author @key(fields: "id") { id: Int! @external }
type Query { reviews: [review!]! }
`;

const REVIEWS = [
  { id: 1, body: 'brilliant', author: { __typename: 'author', id: 1 } },
  { id: 2, body: 'thorough', author: { __typename: 'author', id: 3 } },
  { id: 3, body: 'gone', author: { __typename: 'author', id: 999 } },
  { id: 4, body: 'foundational', author: { __typename: 'author', id: 2 } },
];

/** The reviews subgraph: `_service` and `reviews` over graphql-js, on a real HTTP server. */
function startReviewsSubgraph(): Promise<Server> {
  const schema = buildSchema(`
    scalar _Any
    type _Service { sdl: String }
    type review { id: Int! body: String! author: author }
    type author { id: Int! }
    type Query { reviews: [review!]! _service: _Service! }
  `);
  const root = { reviews: () => REVIEWS, _service: () => ({ sdl: REVIEWS_SDL }) };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
      void execute({ schema, source: query, rootValue: root, variableValues: variables ?? null }).then((result) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(result));
      });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('metadata/gateway-federation with a real @apollo/gateway', function () {
  this.timeout(60_000);
  let f: ReadApiFixture;
  let reviews: Server;
  let gateway: ApolloGateway;
  let run: (query: string, headers?: Record<string, string>) => Promise<{ data?: unknown; errors?: readonly unknown[] }>;
  const forwarded: Array<Record<string, string>> = [];

  before(async () => {
    f = await startReadApiFixture('gwapollo', { experimentalFeatures: ['gateway_federation'] });
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_set_gateway_federation_config', args: { table: 'author', gateway_federation_config: { enable: 'v1' } } },
        { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { rating: { _gte: 5 } } } } },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    reviews = await startReviewsSubgraph();
    const reviewsUrl = `http://127.0.0.1:${(reviews.address() as AddressInfo).port}/graphql`;
    // The gateway forwards the caller's role to the engine, as a deployment's willSendRequest does.
    const { RemoteGraphQLDataSource } = await import('@apollo/gateway');
    gateway = new ApolloGateway({
      supergraphSdl: new IntrospectAndCompose({ subgraphs: [{ name: 'svc', url: `${f.engine.url}/v1/graphql` }, { name: 'reviews', url: reviewsUrl }] }),
      buildService: ({ url }) =>
        new RemoteGraphQLDataSource({
          url: url!,
          willSendRequest({ request, context }) {
            const headers = (context as { headers?: Record<string, string> }).headers ?? {};
            for (const [k, v] of Object.entries(headers)) request.http!.headers.set(k, v);
            if (url!.startsWith(f.engine.url)) forwarded.push({ ...headers });
          },
        }),
    });
    const { executor } = await gateway.load();
    run = async (query, headers = {}) => {
      const document = parse(query);
      const operation = document.definitions[0] as OperationDefinitionNode;
      // The request context Apollo Server would hand the gateway's executor.
      const requestContext = {
        request: { query, variables: {} },
        document,
        source: query,
        queryHash: createHash('sha256').update(query).digest('hex'),
        operationName: null,
        operation,
        context: { headers },
        logger: { debug() {}, info() {}, warn() {}, error() {} },
        metrics: {},
        overallCachePolicy: { restrict() {}, replace() {}, policyIfCacheable: () => null },
        cache: undefined,
        schema: undefined,
      };
      return executor(requestContext as unknown as Parameters<typeof executor>[0]);
    };
  });
  after(async () => {
    await gateway?.stop();
    await new Promise((resolve) => (reviews ? reviews.close(resolve) : resolve(undefined)));
    await f?.close();
  });

  it('composes the engine (from its _service sdl) with another subgraph', async () => {
    const result = await run('{ author(order_by: {id: asc}, limit: 2) { id name } }');
    expect(result.errors).to.equal(undefined);
    expect(result.data).to.deep.equal({ author: [{ id: 1, name: 'Ada Lovelace' }, { id: 2, name: 'Alan Turing' }] });
  });

  it('resolves references from the other subgraph through the engine\'s _entities', async () => {
    forwarded.length = 0;
    const result = await run('{ reviews { id body author { id name email } } }');
    expect(result.errors).to.equal(undefined);
    expect(result.data).to.deep.equal({
      reviews: [
        { id: 1, body: 'brilliant', author: { id: 1, name: 'Ada Lovelace', email: 'ada@example.com' } },
        { id: 2, body: 'thorough', author: { id: 3, name: 'Grace Hopper', email: null } },
        { id: 3, body: 'gone', author: null },
        { id: 4, body: 'foundational', author: { id: 2, name: 'Alan Turing', email: 'alan@example.com' } },
      ],
    });
    expect(forwarded).to.have.length(1);
  });

  it('resolves them under the forwarded role\'s permission (rows it cannot see are null)', async () => {
    const result = await run('{ reviews { id author { name } } }', { 'x-svc-role': 'user' });
    expect(result.errors).to.equal(undefined);
    // user sees authors rated 5 or more: Ada (1) and Grace (3), not Alan (2, rated 4).
    expect(result.data).to.deep.equal({
      reviews: [{ id: 1, author: { name: 'Ada Lovelace' } }, { id: 2, author: { name: 'Grace Hopper' } }, { id: 3, author: null }, { id: 4, author: null }],
    });
    // And the role cannot ask for a column it may not select, through the gateway either.
    const denied = await run('{ reviews { id author { email } } }', { 'x-svc-role': 'user' });
    expect(JSON.stringify(denied.errors)).to.contain('email');
  });
});
