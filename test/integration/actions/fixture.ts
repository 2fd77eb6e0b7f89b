/**
 * The action tests' world: a database with `author` and `article` (tracked, `user` may select
 * authors), custom types with relationships to both, a real HTTP handler in the test process
 * (the webhook sink) answering per action name, and an engine whose async runner polls quickly.
 */
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { startWebhookSink, type SinkAnswer, type SinkRequest, type WebhookSink } from '../../helpers/webhook-sink.js';

export const SCHEMA_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, age int);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));
INSERT INTO author (name, age) VALUES ('ann', 30), ('bob', 40), ('cid', 50);
INSERT INTO article (title, author_id) VALUES ('a1', 1), ('a2', 1), ('b1', 2), ('c1', 3), ('c2', 3), ('c3', 3);
`;

export const CUSTOM_TYPES = {
  scalars: [{ name: 'Email' }],
  enums: [{ name: 'Mood', values: [{ value: 'happy' }, { value: 'sad' }] }],
  input_objects: [{ name: 'UserInput', fields: [{ name: 'name', type: 'String!' }, { name: 'email', type: 'Email' }, { name: 'mood', type: 'Mood' }] }],
  objects: [
    {
      name: 'UserOutput',
      fields: [
        { name: 'id', type: 'Int!' },
        { name: 'name', type: 'String!' },
        { name: 'tags', type: '[String!]' },
        { name: 'mood', type: 'Mood' },
        { name: 'info', type: 'Info' },
      ],
      relationships: [
        { name: 'author', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } },
        { name: 'articles', type: 'array', remote_table: { schema: 'public', name: 'article' }, field_mapping: { id: 'author_id' } },
      ],
    },
    { name: 'Info', fields: [{ name: 'note', type: 'String' }] },
  ],
};

export type Handler = (req: SinkRequest) => SinkAnswer | Promise<SinkAnswer>;

export interface ActionFixture {
  db: TestDatabase;
  engine: Engine;
  sink: WebhookSink;
  /** Handlers by action name (the payload's `action.name`). */
  handlers: Map<string, Handler>;
  admin(query: string, variables?: Record<string, unknown>): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  as(role: string, userId: string | null, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  createAction(name: string, definition: Record<string, unknown>, extra?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startActionFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<ActionFixture> {
  const db = await createTestDatabase(prefix, SCHEMA_SQL);
  const sink = await startWebhookSink();
  const handlers = new Map<string, Handler>();
  sink.respond((req) => {
    const h = handlers.get(req.json?.action?.name);
    return h ? h(req) : { status: 404, body: '{"message":"no handler"}' };
  });
  const env = { ...process.env, ACTION_BASE: sink.url, SECRET_VALUE: 'from-env' } as Record<string, string>;
  const engine = await startTestEngine({ databaseUrl: db.url, asyncActionsFetchInterval: 50, ...config }, { env });
  const setup = await metadata(engine, {
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'article' } },
      { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'set_custom_types', args: CUSTOM_TYPES },
    ],
  });
  if (setup.status !== 200) throw new Error(`setup failed: ${JSON.stringify(setup.body)}`);
  const as = async (role: string, userId: string | null, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { 'x-svc-role': role, ...headers };
    if (userId !== null) h['x-svc-user-id'] = userId;
    return (await graphql(engine, query, variables, h)).body;
  };
  return {
    db,
    engine,
    sink,
    handlers,
    admin: async (query, variables) => (await graphql(engine, query, variables)).body,
    as,
    async createAction(name, definition, extra = {}) {
      const r = await metadata(engine, { type: 'create_action', args: { name, definition: { handler: '{{ACTION_BASE}}/handler', ...definition }, ...extra } });
      if (r.status !== 200) throw new Error(`create_action failed: ${JSON.stringify(r.body)}`);
    },
    async close() {
      await engine.close();
      await sink.close();
      await db.drop();
    },
  };
}

export const json = (body: unknown, status = 200): SinkAnswer => ({ status, body: JSON.stringify(body) });
