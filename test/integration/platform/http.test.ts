import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';

const ADMIN = { 'x-svc-admin-secret': 's3cret' };

describe('HTTP server (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('http');
    engine = await startTestEngine({
      databaseUrl: db.url,
      adminSecret: 's3cret',
      corsDomain: ['https://app.example.com', 'https://*.example.org:8443'],
      maxRequestBodySize: 2048,
    });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('answers /healthz with OK', async () => {
    const res = await call(engine, '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.equal('OK');
  });

  it('answers /v1/version', async () => {
    const res = await call(engine, '/v1/version');
    expect(res.status).to.equal(200);
    expect(res.body).to.have.property('version').that.matches(/^v\d+\.\d+\.\d+/);
  });

  it('serves /v1alpha1/config to admins only, from the live configuration', async () => {
    const denied = await call(engine, '/v1alpha1/config');
    expect(denied.status).to.equal(401);
    expect(denied.body).to.include({ code: 'access-denied' });
    const wrong = await call(engine, '/v1alpha1/config', undefined, { 'x-svc-admin-secret': 'nope' });
    expect(wrong.status).to.equal(401);
    expect(wrong.body).to.deep.equal({ path: '$', error: 'invalid "x-svc-admin-secret"/"x-svc-access-key"', code: 'access-denied' });
    const asUser = await call(engine, '/v1alpha1/config', undefined, { ...ADMIN, 'x-svc-role': 'user' });
    expect(asUser.status).to.equal(400);
    expect(asUser.body).to.include({ code: 'access-denied', error: 'restricted access : admin only' });

    const res = await call(engine, '/v1alpha1/config', undefined, ADMIN);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({
      is_admin_secret_set: true,
      is_auth_hook_set: false,
      is_jwt_set: false,
      is_allow_list_enabled: false,
      is_function_permissions_inferred: true,
      is_remote_schema_permissions_enabled: false,
      live_queries: { batch_size: 100, refetch_delay: 1 },
    });
    expect(res.body).to.have.property('version');
    expect(res.body).to.have.property('jwt', null);
  });

  it('answers 404 not-found for an unknown path', async () => {
    const res = await call(engine, '/v1/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({ path: '$', error: 'resource does not exist', code: 'not-found' });
  });

  it('refuses a body over the limit with 413 and changes nothing', async () => {
    const big = { type: 'replace_metadata', args: { version: 3, sources: [], padding: 'x'.repeat(4096) } };
    const res = await metadata(engine, big, ADMIN);
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ code: 'bad-request' });
    const exported = await metadata(engine, { type: 'export_metadata', version: 2, args: {} }, ADMIN);
    expect(exported.body.metadata.sources.map((s: { name: string }) => s.name)).to.deep.equal(['default']);
  });

  it('answers invalid JSON with invalid-json', async () => {
    const res = await fetch(engine.url + '/v1/metadata', { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/json' }, body: '{"type":' });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.include({ code: 'invalid-json' });
  });

  describe('CORS', () => {
    it('allows a configured origin, with credentials', async () => {
      const res = await call(engine, '/healthz', undefined, { origin: 'https://app.example.com' });
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    });

    it('allows wildcard subdomains with the right port only', async () => {
      const ok = await call(engine, '/healthz', undefined, { origin: 'https://a.b.example.org:8443' });
      expect(ok.headers.get('access-control-allow-origin')).to.equal('https://a.b.example.org:8443');
      const wrongPort = await call(engine, '/healthz', undefined, { origin: 'https://a.example.org' });
      expect(wrongPort.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('sends no CORS headers to other origins', async () => {
      const res = await call(engine, '/healthz', undefined, { origin: 'https://evil.example.net' });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('answers a preflight with the allowed methods and requested headers', async () => {
      const res = await fetch(engine.url + '/v1/graphql', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-svc-role,content-type' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-methods')).to.contain('POST');
      expect(res.headers.get('access-control-allow-headers')).to.equal('x-svc-role,content-type');
    });
  });

  it('gzips large responses when the client accepts gzip', async () => {
    const body = await new Promise<{ encoding: string | undefined; text: string }>((resolve, reject) => {
      const req = request(
        engine.url + '/v1/metadata',
        { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/json', 'accept-encoding': 'gzip' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const encoding = res.headers['content-encoding'];
            resolve({ encoding, text: (encoding === 'gzip' ? gunzipSync(raw) : raw).toString() });
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ type: 'export_metadata', version: 1, args: {} }));
    });
    // A small export stays uncompressed; a 1 KB+ one is gzipped. Make sure the body is intact either way.
    expect(JSON.parse(body.text)).to.have.property('version', 3);
    if (body.text.length > 1024) expect(body.encoding).to.equal('gzip');
  });

  it('echoes a request id, or makes one', async () => {
    const given = await call(engine, '/healthz', undefined, { 'x-request-id': 'abc-123' });
    expect(given.headers.get('x-request-id')).to.equal('abc-123');
    const made = await call(engine, '/healthz');
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});

describe('enabled APIs (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('apis');
    engine = await startTestEngine({ databaseUrl: db.url, enabledApis: ['graphql'] });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('answers 404 for disabled APIs as if they did not exist', async () => {
    for (const path of ['/v1/metadata', '/v1/query', '/v2/query', '/v1alpha1/pg_dump']) {
      const res = await call(engine, path, { type: 'export_metadata', args: {} });
      expect(res.status, path).to.equal(404);
      expect(res.body).to.include({ code: 'not-found' });
    }
    const config = await call(engine, '/v1alpha1/config');
    expect(config.status).to.equal(404);
  });

  it('still serves the enabled API', async () => {
    const res = await call(engine, '/v1/graphql', { query: '{ __typename }' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ data: { __typename: 'query_root' } });
  });
});

describe('POST /v1/graphql, served as a raw route, behaves like every other route (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  before(async () => {
    db = await createTestDatabase('raw', "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, repeat('x', 40) FROM generate_series(1, 200) g;");
    engine = await startTestEngine({ databaseUrl: db.url, corsDomain: ['https://app.example.com'] });
    await metadata(engine, { type: 'pg_track_table', args: { table: 't' } });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('sends CORS headers to an allowed origin only', async () => {
    const ok = await call(engine, '/v1/graphql', { query: '{ __typename }' }, { origin: 'https://app.example.com' });
    expect(ok.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
    expect(ok.headers.get('access-control-allow-credentials')).to.equal('true');
    const other = await call(engine, '/v1/graphql', { query: '{ __typename }' }, { origin: 'https://evil.example.net' });
    expect(other.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('echoes the request id and answers JSON', async () => {
    const res = await call(engine, '/v1/graphql', { query: '{ __typename }' }, { 'x-request-id': 'raw-1' });
    expect(res.headers.get('x-request-id')).to.equal('raw-1');
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('gzips a large answer for clients that accept gzip, and keeps it plain for others', async () => {
    const body = JSON.stringify({ query: '{ t { id v } }' });
    const zipped = await new Promise<{ encoding: string | undefined; text: string }>((resolve, reject) => {
      const req = request(engine.url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], text: gunzipSync(Buffer.concat(chunks)).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(zipped.encoding).to.equal('gzip');
    expect(JSON.parse(zipped.text).data.t).to.have.length(200);
    // fetch always asks for gzip, so the plain case uses node:http without Accept-Encoding.
    const plain = await new Promise<{ encoding: string | undefined; text: string }>((resolve, reject) => {
      const req = request(engine.url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(plain.encoding).to.equal(undefined);
    expect(JSON.parse(plain.text).data.t).to.have.length(200);
  });

  it('answers a short query gzipped too (a stored block under 1 KB), which every client reads', async () => {
    const zipped = await new Promise<{ encoding: string | undefined; raw: Buffer }>((resolve, reject) => {
      const req = request(engine.url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], raw: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query: '{ t(limit: 2, order_by: {id: asc}) { id v } }' }));
    });
    expect(zipped.encoding).to.equal('gzip');
    expect(JSON.parse(gunzipSync(zipped.raw).toString()).data.t).to.have.length(2);
    // fetch (undici) inflates it as a browser would.
    const res = await fetch(engine.url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect(await res.json()).to.deep.equal({ data: { __typename: 'query_root' } });
  });

  it('refuses a body over the limit as a GraphQL error', async () => {
    const small = await startTestEngine({ databaseUrl: db.url, maxRequestBodySize: 64 });
    try {
      const res = await call(small, '/v1/graphql', { query: `{ __typename ${' '.repeat(100)} }` });
      expect(res.status).to.equal(200);
      expect(res.body.errors[0].extensions.code).to.equal('bad-request');
      const alpha = await call(small, '/v1alpha1/graphql', { query: `{ __typename ${' '.repeat(100)} }` });
      expect(alpha.status).to.equal(413);
    } finally {
      await small.close();
    }
  });
});
