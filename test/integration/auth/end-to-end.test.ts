import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import type { Engine } from '../../../core/engine.js';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../../plugins/auth/jwt/config.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { SCHEMA_SQL, TRACK_BULK } from '../read-api/fixture.js';

const ADMIN_SECRET = 'e2e-admin-secret';
const JWT_KEY = 'an-hmac-secret-of-at-least-thirty-two-characters';
const ADMIN = { 'x-svc-admin-secret': ADMIN_SECRET };
const USER_ID = 'X-Svc-User-Id';

/** user: own articles (no body), aggregates; may insert/update only articles of their own. */
const PERMISSIONS = {
  type: 'bulk',
  args: [
    {
      type: 'pg_create_select_permission',
      args: {
        table: 'article',
        role: 'user',
        permission: { columns: ['id', 'title', 'author_id', 'rating'], filter: { author_id: { _eq: USER_ID } }, allow_aggregations: true },
      },
    },
    {
      type: 'pg_create_insert_permission',
      args: { table: 'article', role: 'user', permission: { columns: ['title', 'author_id', 'rating'], check: { author_id: { _eq: USER_ID } } } },
    },
    {
      type: 'pg_create_update_permission',
      args: {
        table: 'article',
        role: 'user',
        permission: { columns: ['title', 'author_id', 'rating'], filter: { author_id: { _eq: USER_ID } }, check: { author_id: { _eq: USER_ID } } },
      },
    },
  ],
};

const OWN_ROWS = '{ article(order_by: {id: asc}) { id author_id } article_aggregate { aggregate { count sum { rating } } } }';
const SECRET_COLUMN = '{ article { body } }';
const INSERT_OTHER = 'mutation { insert_article_one(object: {title: "forged", author_id: 1, rating: 1}) { id } }';
const INSERT_OWN = 'mutation { insert_article_one(object: {title: "mine", author_id: 2, rating: 3}) { id author_id } }';
const MOVE_TO_OTHER = 'mutation { update_article(where: {id: {_eq: 3}}, _set: {author_id: 1}) { affected_rows } }';

/** The same acceptance checks whichever auth mode turns the credentials into the `user` session of author 2. */
function behavesAsUserTwo(get: () => { engine: Engine; db: TestDatabase; headers: Record<string, string> }): void {
  it('sees only its own rows, in queries and aggregates', async () => {
    const { engine, db, headers } = get();
    const res = await graphql(engine, OWN_ROWS, undefined, headers);
    const rows = (await db.sql('SELECT id, author_id FROM article WHERE author_id = 2 ORDER BY id')).rows;
    const [agg] = (await db.sql('SELECT count(*)::int AS count, sum(rating)::int AS sum FROM article WHERE author_id = 2')).rows;
    expect(res.body).to.deep.equal({
      data: { article: rows, article_aggregate: { aggregate: { count: agg.count, sum: { rating: agg.sum } } } },
    });
  });

  it('cannot select a column it has no permission for', async () => {
    const { engine, headers } = get();
    const res = await graphql(engine, SECRET_COLUMN, undefined, headers);
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
    expect(res.body).to.not.have.property('data');
  });

  it('cannot insert a row that fails the check, and nothing is written', async () => {
    const { engine, db, headers } = get();
    const before = (await db.sql('SELECT count(*)::int AS n FROM article')).rows[0].n;
    const res = await graphql(engine, INSERT_OTHER, undefined, headers);
    expect(res.body.errors[0].extensions.code).to.equal('permission-error');
    expect(res.body.errors[0].message).to.equal('check constraint of an insert/update permission has failed');
    expect((await db.sql('SELECT count(*)::int AS n FROM article')).rows[0].n).to.equal(before);
  });

  it('can insert a row that passes the check', async () => {
    const { engine, db, headers } = get();
    const res = await graphql(engine, INSERT_OWN, undefined, headers);
    expect(res.body.data.insert_article_one.author_id).to.equal(2);
    await db.sql('DELETE FROM article WHERE id = $1', [res.body.data.insert_article_one.id]);
  });

  it('cannot update a row so that it fails the check, and nothing changes', async () => {
    const { engine, db, headers } = get();
    const res = await graphql(engine, MOVE_TO_OTHER, undefined, headers);
    expect(res.body.errors[0].extensions.code).to.equal('permission-error');
    expect((await db.sql('SELECT author_id FROM article WHERE id = 3')).rows[0].author_id).to.equal(2);
  });
}

async function prepare(engine: Engine): Promise<void> {
  for (const body of [TRACK_BULK, PERMISSIONS]) {
    const res = await metadata(engine, body, ADMIN);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
}

describe('auth and permissions end to end: JWT mode (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  let token: string;
  before(async () => {
    db = await createTestDatabase('e2e_jwt', SCHEMA_SQL);
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, jwtSecret: { type: 'HS256', key: JWT_KEY } });
    await prepare(engine);
    token = await new SignJWT({
      [DEFAULT_CLAIMS_NAMESPACE]: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '2' },
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('2')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(JWT_KEY));
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  behavesAsUserTwo(() => ({ engine, db, headers: { authorization: `Bearer ${token}` } }));

  it('refuses a request without credentials', async () => {
    const res = await graphql(engine, OWN_ROWS);
    expect(res.body.errors[0].extensions.code).to.equal('invalid-headers');
  });

  it('ignores x-svc-user-id headers next to a token: the token decides', async () => {
    const res = await graphql(engine, '{ article_aggregate { aggregate { count } } }', undefined, {
      authorization: `Bearer ${token}`,
      'x-svc-user-id': '1',
    });
    const [{ n }] = (await db.sql('SELECT count(*)::int AS n FROM article WHERE author_id = 2')).rows;
    expect(res.body.data.article_aggregate.aggregate.count).to.equal(n);
  });
});

describe('auth and permissions end to end: webhook mode (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  let hook: Server;
  const seen: string[] = [];
  before(async () => {
    hook = createServer((req, res) => {
      seen.push(String(req.headers['authorization']));
      if (req.headers['authorization'] !== 'Bearer let-me-in') {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' }));
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/auth`;
    db = await createTestDatabase('e2e_hook', SCHEMA_SQL);
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, authHook: url, authHookMode: 'GET' });
    await prepare(engine);
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
    await new Promise((r) => hook?.close(r));
  });

  behavesAsUserTwo(() => ({ engine, db, headers: { authorization: 'Bearer let-me-in' } }));

  it('answers 401 access-denied when the webhook denies', async () => {
    const res = await graphql(engine, OWN_ROWS, undefined, { authorization: 'Bearer nope' });
    expect(res.body.errors[0].extensions.code).to.equal('access-denied');
  });

  it('asked the real webhook with the client credentials', () => {
    expect(seen).to.include('Bearer let-me-in');
  });
});
