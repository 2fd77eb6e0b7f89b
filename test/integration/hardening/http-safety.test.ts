import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { MAX_GRAPHQL_DEPTH, MAX_GRAPHQL_TOKENS, MAX_JSON_DEPTH } from '../../../core/http/nesting.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, asUser, trackItems } from '../../helpers/hardening.js';

async function raw(engine: Engine, path: string, init: RequestInit): Promise<{ status: number; headers: Headers; text: string; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(engine.url + path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const countItems = async (db: TestDatabase): Promise<number> => Number((await db.sql('SELECT count(*) AS n FROM item')).rows[0].n);

describe('HTTP-level safety (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('http_safety');
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET });
    await trackItems(engine, db);
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  describe('GraphQL over GET', () => {
    it('runs a query', async () => {
      const q = encodeURIComponent('{ item_by_pk(id: 1) { name } }');
      const res = await raw(engine, `/v1/graphql?query=${q}`, { headers: ADMIN });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({ data: { item_by_pk: { name: 'item 1' } } });
    });

    it('refuses a mutation with 405 and Allow: POST, on both endpoints, and writes nothing', async () => {
      const before = await countItems(db);
      const q = encodeURIComponent('mutation { insert_item_one(object: {name: "csrf", owner_id: 1}) { id } }');
      for (const path of ['/v1/graphql', '/v1alpha1/graphql']) {
        const res = await raw(engine, `${path}?query=${q}`, { headers: ADMIN });
        expect(res.status).to.equal(405);
        expect(res.headers.get('allow')).to.equal('POST');
        expect(res.json.errors[0].extensions.code).to.equal('method-not-allowed');
      }
      expect(await countItems(db)).to.equal(before);
    });
  });

  describe('POST content type', () => {
    const mutation = JSON.stringify({ query: 'mutation { insert_item_one(object: {name: "csrf", owner_id: 1}) { id } }' });

    for (const [label, type] of [
      ['text/plain (a no-preflight fetch)', 'text/plain'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['none', undefined],
    ] as const) {
      it(`refuses ${label} with 415 and writes nothing`, async () => {
        const before = await countItems(db);
        const headers: Record<string, string> = { ...ADMIN };
        if (type) headers['content-type'] = type;
        for (const path of ['/v1/graphql', '/v1alpha1/graphql']) {
          // fetch adds text/plain to a string body when no type is given; a Uint8Array gets none.
          const res = await raw(engine, path, { method: 'POST', headers, body: type ? mutation : new TextEncoder().encode(mutation) });
          expect(res.status, path).to.equal(415);
          expect(res.json.errors[0].extensions.code).to.equal('bad-request');
        }
        const meta = await raw(engine, '/v1/metadata', {
          method: 'POST',
          headers,
          body: JSON.stringify({ type: 'pg_untrack_table', args: { table: 'item', cascade: true } }),
        });
        expect(meta.status).to.equal(415);
        expect(await countItems(db)).to.equal(before);
        const still = await call(engine, '/v1/graphql', { query: '{ item_by_pk(id: 1) { id } }' }, ADMIN);
        expect(still.body).to.deep.equal({ data: { item_by_pk: { id: 1 } } });
      });
    }

    it('accepts application/json with a charset and any application/*+json', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/graphql+json']) {
        const res = await raw(engine, '/v1/graphql', {
          method: 'POST',
          headers: { ...ADMIN, 'content-type': type },
          body: JSON.stringify({ query: '{ item_by_pk(id: 2) { id } }' }),
        });
        expect(res.status, type).to.equal(200);
        expect(res.json).to.deep.equal({ data: { item_by_pk: { id: 2 } } });
      }
    });
  });

  describe('Accept negotiation', () => {
    const post = (accept: string | undefined, query: string) =>
      raw(engine, '/v1/graphql', {
        method: 'POST',
        headers: { ...ADMIN, 'content-type': 'application/json', ...(accept ? { accept } : {}) },
        body: JSON.stringify({ query }),
      });

    it('answers application/graphql-response+json with its status codes when asked', async () => {
      const accept = 'application/graphql-response+json, application/json;q=0.9';
      const good = await post(accept, '{ item_by_pk(id: 1) { id } }');
      expect(good.status).to.equal(200);
      expect(good.headers.get('content-type')).to.match(/^application\/graphql-response\+json/);
      const bad = await post(accept, '{ item_by_pk(id: 1) { nope } }');
      expect(bad.status).to.equal(400);
      expect(bad.headers.get('content-type')).to.match(/^application\/graphql-response\+json/);
      expect(bad.json.errors[0].extensions.code).to.equal('validation-failed');
      const syntax = await post(accept, '{ item_by_pk(id: 1) {');
      expect(syntax.status).to.equal(400);
    });

    it('keeps application/json and HTTP 200 errors otherwise', async () => {
      for (const accept of [undefined, 'application/json', '*/*', 'application/json, application/graphql-response+json;q=0.5']) {
        const bad = await post(accept, '{ item_by_pk(id: 1) { nope } }');
        expect(bad.status, String(accept)).to.equal(200);
        expect(bad.headers.get('content-type')).to.match(/^application\/json/);
      }
    });

    it('negotiates on GET too', async () => {
      const q = encodeURIComponent('{ item_by_pk(id: 1) { nope } }');
      const res = await raw(engine, `/v1/graphql?query=${q}`, { headers: { ...ADMIN, accept: 'application/graphql-response+json' } });
      expect(res.status).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^application\/graphql-response\+json/);
    });
  });

  describe('bounded parsing', () => {
    const nested = (depth: number): string => `{ ${'item_by_pk(id: 2) { parent { '.repeat(1)}${'parent { '.repeat(depth)}id${' }'.repeat(depth)} } } }`;

    it('refuses a query nested 5,000 levels deep with a coded error, not a stack overflow', async () => {
      const res = await call(engine, '/v1/graphql', { query: nested(5000) }, ADMIN);
      expect(res.status).to.equal(200);
      expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
      expect(res.body.errors[0].message).to.equal(`the query is nested deeper than ${MAX_GRAPHQL_DEPTH} levels`);
    });

    it('plans and runs a query just under the nesting limit', async () => {
      // Each `_and` level opens a brace and a bracket; the rest of the query takes four.
      const levels = Math.floor((MAX_GRAPHQL_DEPTH - 6) / 2);
      const where = `${'{_and: ['.repeat(levels)}{id: {_eq: 3}}${']}'.repeat(levels)}`;
      const res = await call(engine, '/v1/graphql', { query: `{ item(where: ${where}) { id } }` }, ADMIN);
      expect(res.body).to.deep.equal({ data: { item: [{ id: 3 }] } });
    });

    it('refuses a document with too many tokens', async () => {
      const query = `{ ${'__typename '.repeat(MAX_GRAPHQL_TOKENS + 10)} }`;
      const res = await call(engine, '/v1/graphql', { query }, ADMIN);
      expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
      expect(res.body.errors[0].message).to.contain('tokens');
    });

    it('refuses variables nested 100,000 levels deep as invalid JSON, before parsing them', async () => {
      const depth = 100_000;
      const body = `{"query":"query($t: jsonb) { item(where: {tags: {_eq: $t}}) { id } }","variables":{"t":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const res = await raw(engine, '/v1/graphql', { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/json' }, body });
      expect(res.status).to.equal(200);
      expect(res.json.errors[0].extensions.code).to.equal('invalid-json');
      expect(res.json.errors[0].message).to.equal(`Error in $: nested deeper than ${MAX_JSON_DEPTH} levels`);
    });

    it('still answers after all that', async () => {
      const res = await call(engine, '/v1/graphql', { query: '{ item_aggregate { aggregate { count } } }' }, asUser(1));
      expect(res.body).to.deep.equal({ data: { item_aggregate: { aggregate: { count: 10 } } } });
    });
  });
});

describe('CORS with cookie credentials (integration)', function () {
  let db: TestDatabase;
  const engines: Engine[] = [];
  const jwtSecret = { type: 'HS256', key: 'k'.repeat(40), header: { type: 'Cookie', name: 'token' } };

  before(async () => {
    db = await createTestDatabase('cors_cookie');
  });
  after(async () => {
    for (const e of engines) await e.close();
    await db?.drop();
  });

  async function start(extra: Record<string, unknown>): Promise<Engine> {
    const e = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, ...extra });
    engines.push(e);
    return e;
  }

  async function corsOf(engine: Engine, origin: string): Promise<{ actual: Headers; preflight: Headers }> {
    const actual = await raw(engine, '/v1/graphql', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json', ...ADMIN },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    const preflight = await raw(engine, '/v1/graphql', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    return { actual: actual.headers, preflight: preflight.headers };
  }

  it('reflects any origin without credentials when a JWT comes from a cookie and every origin is allowed', async () => {
    for (const corsDomain of [undefined, ['*']]) {
      const e = await start({ jwtSecret, ...(corsDomain ? { corsDomain } : {}) });
      const { actual, preflight } = await corsOf(e, 'https://evil.example');
      expect(actual.get('access-control-allow-origin')).to.equal('https://evil.example');
      expect(actual.get('access-control-allow-credentials')).to.equal(null);
      expect(preflight.get('access-control-allow-credentials')).to.equal(null);
    }
  });

  it('does the same for webhook mode (the webhook receives the cookies)', async () => {
    const e = await start({ authHook: 'http://127.0.0.1:9/hook' });
    const { actual } = await corsOf(e, 'https://evil.example');
    expect(actual.get('access-control-allow-credentials')).to.equal(null);
  });

  it('allows credentials again with --cors-wildcard-credentials, or for listed origins', async () => {
    const optIn = await start({ jwtSecret, corsWildcardCredentials: true });
    expect((await corsOf(optIn, 'https://any.example')).actual.get('access-control-allow-credentials')).to.equal('true');
    const listed = await start({ jwtSecret, corsDomain: ['https://app.example'] });
    const ok = await corsOf(listed, 'https://app.example');
    expect(ok.actual.get('access-control-allow-credentials')).to.equal('true');
    expect(ok.preflight.get('access-control-allow-credentials')).to.equal('true');
    expect((await corsOf(listed, 'https://evil.example')).actual.get('access-control-allow-origin')).to.equal(null);
  });

  it('keeps credentials for every origin when no auth mode reads cookies (as the reference engine)', async () => {
    const plain = await start({});
    expect((await corsOf(plain, 'https://any.example')).actual.get('access-control-allow-credentials')).to.equal('true');
  });
});
