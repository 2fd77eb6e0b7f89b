/**
 * A running engine over a fresh database for the subscription tests: authors, articles (with a
 * `user` role that sees only its own articles), an unrelated table, and websocket clients of
 * both protocols built from the real client libraries.
 */
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';
import type { Engine, EngineOptions } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { SubscriptionManager } from '../../../core/subscriptions/manager.js';

export const ADMIN_SECRET = 'sub-secret';
export const ADMIN = { 'x-svc-admin-secret': ADMIN_SECRET };

export const SETUP_SQL = `
  CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), priority int NOT NULL DEFAULT 0);
  CREATE TABLE other (id serial PRIMARY KEY, v int);
  INSERT INTO author (name) VALUES ('Ada'), ('Alan'), ('Grace');
  INSERT INTO article (title, author_id, priority) VALUES ('a1', 1, 1), ('a2', 1, 2), ('b1', 2, 2), ('c1', 3, 3);
`;

export interface SubsFixture {
  db: TestDatabase;
  engine: Engine;
  wsUrl: string;
  manager(): SubscriptionManager;
  close(): Promise<void>;
}

export async function startSubsFixture(
  prefix: string,
  config: Partial<ServerConfig> = {},
  extraSql = '',
  options: EngineOptions = {},
): Promise<SubsFixture> {
  const db = await createTestDatabase(prefix, SETUP_SQL + extraSql);
  let engine: Engine | undefined;
  try {
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, ...config }, options);
    const res = await metadata(
      engine,
      {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'author' } },
          { type: 'pg_track_table', args: { table: 'article' } },
          { type: 'pg_track_table', args: { table: 'other' } },
          {
            type: 'pg_create_object_relationship',
            args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
          },
          {
            type: 'pg_create_select_permission',
            args: {
              table: 'article',
              role: 'user',
              permission: { columns: ['id', 'title', 'author_id', 'priority'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } },
            },
          },
          {
            type: 'pg_create_select_permission',
            args: {
              table: 'author',
              role: 'user',
              permission: { columns: ['id', 'name'], filter: {}, query_root_fields: ['select_by_pk'], subscription_root_fields: ['select'] },
            },
          },
        ],
      },
      ADMIN,
    );
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  } catch (e) {
    await engine?.close();
    await db.drop();
    throw e;
  }
  const e = engine;
  return {
    db,
    engine: e,
    wsUrl: `ws://127.0.0.1:${e.port}/v1/graphql`,
    manager: () => e.kernel.container.resolve<SubscriptionManager>('subscriptionManager'),
    async close() {
      await e.close();
      await db.drop();
    },
  };
}

/** A graphql-ws (graphql-transport-ws) client; `lazy: false` connects at once. */
export function transportClient(url: string, headers: Record<string, string>, extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  return createClient({ url, webSocketImpl: WebSocket, connectionParams: { headers }, lazy: false, retryAttempts: 0, onNonLazyError: () => {}, ...extra });
}

/** Waits until `check` returns a value (not undefined), polling; fails after `ms`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, ms = 10000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Collects what a subscription receives. */
export class Received<T = unknown> {
  readonly values: T[] = [];
  readonly errors: unknown[] = [];
  completed = false;
  readonly sink = {
    next: (v: T) => void this.values.push(v),
    error: (e: unknown) => void this.errors.push(e),
    complete: () => {
      this.completed = true;
    },
  };
  async nth(n: number, ms = 10000): Promise<T> {
    return waitFor(() => this.values[n], ms, `message #${n + 1}`);
  }
}

export const JWT_KEY = 'a-very-long-secret-key-for-subscription-tests-0123456789';

/** A raw websocket with the messages it received, for protocol-level checks. */
export class RawSocket {
  readonly messages: Array<Record<string, unknown>> = [];
  closed: { code: number; reason: string } | null = null;
  readonly ws: WebSocket;
  constructor(url: string, protocols?: string | string[]) {
    this.ws = new WebSocket(url, protocols);
    this.ws.on('message', (d) => this.messages.push(JSON.parse(d.toString()) as Record<string, unknown>));
    this.ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
    this.ws.on('error', () => {});
  }
  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState === WebSocket.OPEN) return resolve();
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }
  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }
  message(pred: (m: Record<string, unknown>) => boolean, what = 'a message'): Promise<Record<string, unknown>> {
    return waitFor(() => this.messages.find(pred), 10000, what);
  }
  /** For a refused upgrade: the HTTP status and body. */
  static refused(url: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => {});
    });
  }
  closedWith(): Promise<{ code: number; reason: string }> {
    return waitFor(() => this.closed ?? undefined, 15000, 'the close');
  }
}
