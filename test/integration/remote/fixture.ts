/**
 * The remote-schema test world: a real PostgreSQL with `users` (and a second database with
 * `orders`), and real GraphQL servers standing in for a messages service and a profile service.
 */
import { buildSchema } from 'graphql';
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';
import { startGraphQLServer, type TestGraphQLServer } from '../../helpers/graphql-server.js';

export const ADMIN = { 'x-svc-admin-secret': 'secret' };

export const USERS_SQL = `
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL, region text);
INSERT INTO users VALUES (1, 'ada', 'eu'), (2, 'alan', 'eu'), (3, 'grace', 'us'), (4, 'edsger', NULL);
`;

export const ORDERS_SQL = `
CREATE TABLE orders (id int PRIMARY KEY, user_id int NOT NULL, item text NOT NULL, qty int NOT NULL);
INSERT INTO orders VALUES (10, 1, 'tea', 2), (11, 1, 'cake', 1), (12, 2, 'coffee', 3), (13, 3, 'tea', 1);
`;

export const MESSAGES_SDL = `
  scalar Json
  enum Priority { LOW HIGH }
  interface Node { id: Int! }
  type Message implements Node { id: Int! text: String! authorId: Int! priority: Priority! created_at: String }
  type User implements Node { id: Int! name: String! messages(limit: Int): [Message!]! }
  union SearchResult = Message | User
  input MessageFilter { authorId: Int, priority: Priority, tenant: String }
  type Query {
    hello(name: String): String!
    message(id: Int!): Message
    messages(where: MessageFilter, limit: Int): [Message!]!
    messagesByAuthor(authorId: Int!): [Message!]!
    search(term: String!): [SearchResult!]!
    whoami: String
    echoHeaders: Json
    fail: String
  }
  type Mutation { addMessage(text: String!, authorId: Int!): Message! }
`;

export interface MessageRow {
  id: number;
  text: string;
  authorId: number;
  priority: 'LOW' | 'HIGH';
  created_at: string | null;
  tenant: string;
}

export function messagesServer(): Promise<TestGraphQLServer> {
  const rows: MessageRow[] = [
    { id: 1, text: 'hello from ada', authorId: 1, priority: 'HIGH', created_at: '2024-01-01', tenant: 't1' },
    { id: 2, text: 'second from ada', authorId: 1, priority: 'LOW', created_at: null, tenant: 't2' },
    { id: 3, text: 'alan here', authorId: 2, priority: 'LOW', created_at: null, tenant: 't1' },
    { id: 4, text: 'grace says hi', authorId: 3, priority: 'HIGH', created_at: null, tenant: 't1' },
  ];
  const schema = buildSchema(MESSAGES_SDL);
  const withType = (m: MessageRow) => ({ __typename: 'Message', ...m });
  const root = {
    hello: ({ name }: { name?: string }) => `hello ${name ?? 'world'}`,
    message: ({ id }: { id: number }) => rows.find((r) => r.id === id) ?? null,
    messages: ({ where, limit }: { where?: { authorId?: number; priority?: string; tenant?: string }; limit?: number }) =>
      rows
        .filter((r) => (where?.authorId === undefined || r.authorId === where.authorId) && (!where?.priority || r.priority === where.priority) && (!where?.tenant || r.tenant === where.tenant))
        .slice(0, limit ?? 100),
    messagesByAuthor: ({ authorId }: { authorId: number }) => rows.filter((r) => r.authorId === authorId),
    search: ({ term }: { term: string }) => [
      ...rows.filter((r) => r.text.includes(term)).map(withType),
      ...(term === 'ada' ? [{ __typename: 'User', id: 1, name: 'ada', messages: () => rows.filter((r) => r.authorId === 1) }] : []),
    ],
    whoami: (_a: unknown, ctx: { headers: Record<string, string> }) => ctx.headers['x-svc-user-id'] ?? null,
    echoHeaders: (_a: unknown, ctx: { headers: Record<string, string> }) => ctx.headers,
    fail: () => {
      throw new Error('remote failure');
    },
    addMessage: ({ text, authorId }: { text: string; authorId: number }) => {
      const row: MessageRow = { id: rows.length + 1, text, authorId, priority: 'LOW', created_at: null, tenant: 't1' };
      rows.push(row);
      return row;
    },
  };
  return startGraphQLServer(schema, root);
}

export interface RemoteWorld {
  db: TestDatabase;
  engine: Engine;
  close(): Promise<void>;
}

export async function startWorld(prefix: string, config: Partial<ServerConfig> = {}, env: NodeJS.ProcessEnv = {}): Promise<RemoteWorld> {
  const db = await createTestDatabase(prefix, USERS_SQL);
  const engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'secret', unauthorizedRole: undefined, ...config }, { env: { ...process.env, ...env } });
  const r = await metadata(engine, { type: 'pg_track_table', args: { table: 'users' } }, ADMIN);
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return {
    db,
    engine,
    async close() {
      await engine.close();
      await db.drop();
    },
  };
}
