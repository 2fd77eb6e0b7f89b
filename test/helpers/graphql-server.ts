/**
 * A real GraphQL server (graphql-js over node:http) started in the test process, standing in for
 * a team's other service behind a remote schema. It records every request (body and headers) so
 * tests can count calls and check what was forwarded, can answer slowly, and can be stopped and
 * started again on the same port.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { graphql, type GraphQLSchema } from 'graphql';

export interface RecordedRequest {
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
  headers: IncomingHttpHeaders;
}

export interface TestGraphQLServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Delay before answering, in ms (for timeout tests). */
  delayMs: number;
  /** Replace the answer with this raw body (for bad-response tests); null answers normally. */
  rawAnswer: string | null;
  /** Headers added to every answer (a `Set-Cookie`, for instance). */
  answerHeaders: Record<string, string | string[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startGraphQLServer(
  schema: GraphQLSchema,
  rootValue: Record<string, unknown>,
  port = 0,
): Promise<TestGraphQLServer> {
  let server: Server | null = null;
  const state: TestGraphQLServer = {
    url: '',
    port,
    requests: [],
    delayMs: 0,
    rawAnswer: null,
    answerHeaders: {},
    async stop() {
      const s = server;
      server = null;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          void (async () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
            state.requests.push({ body, headers: req.headers });
            if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
            if (res.destroyed) return;
            res.setHeader('content-type', 'application/json');
            for (const [name, value] of Object.entries(state.answerHeaders)) res.setHeader(name, value);
            if (state.rawAnswer !== null) {
              res.end(state.rawAnswer);
              return;
            }
            const result = await graphql({
              schema,
              source: body.query,
              rootValue,
              variableValues: body.variables,
              operationName: body.operationName,
              contextValue: { headers: req.headers },
            });
            res.end(JSON.stringify(result));
          })();
        });
      });
      await new Promise<void>((resolve) => s.listen(state.port, '127.0.0.1', () => resolve()));
      state.port = (s.address() as AddressInfo).port;
      state.url = `http://127.0.0.1:${state.port}/graphql`;
      server = s;
    },
  };
  await state.start();
  return state;
}

/** A free loopback port (listened on and released), for a server that starts later. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
