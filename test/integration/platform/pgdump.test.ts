import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, startTestEngine } from '../../helpers/engine.js';

describe('pg_dump API (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  before(async () => {
    db = await createTestDatabase('pgdump', 'CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);');
    engine = await startTestEngine({ databaseUrl: db.url });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  const dump = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${engine.url}/v1alpha1/pg_dump`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };

  it('dumps the schema of a source', async () => {
    const res = await dump({ opts: ['--schema-only', '--schema', 'public'], source: 'default' });
    expect(res.status).to.equal(200);
    expect(res.text).to.match(/CREATE TABLE public\.author/);
    expect(res.text).to.contain('-- PostgreSQL database dump');
  });

  it('cleans the output for migrations when asked', async () => {
    const res = await dump({ opts: ['--schema-only', '--schema', 'public'], clean_output: true });
    expect(res.text).to.match(/CREATE TABLE public\.author/);
    expect(res.text).to.not.match(/^--/m);
    expect(res.text).to.not.match(/^SET /m);
  });

  it('refuses options that choose the output file or connection', async () => {
    for (const opt of ['-f', '--file=/tmp/x', '-fx', '--dbname=postgres', '-h']) {
      const res = await dump({ opts: [opt] });
      expect(res.status, opt).to.equal(400);
      expect(JSON.parse(res.text).code).to.equal('not-supported');
    }
  });

  it('refuses non-admins and unknown sources', async () => {
    expect((await dump({ opts: [] }, { 'x-svc-role': 'user' })).status).to.equal(400);
    const unknown = await dump({ opts: [], source: 'nope' });
    expect(JSON.parse(unknown.text)).to.include({ code: 'not-exists' });
  });

  it('reports a failing pg_dump with its stderr in internal', async () => {
    const res = await dump({ opts: ['--no-such-option'] });
    expect(res.status).to.equal(400);
    const body = JSON.parse(res.text);
    expect(body.error).to.equal('pg_dump failed');
    expect(body.internal.stderr).to.contain('no-such-option');
  });

  it('is part of the enabled APIs', async () => {
    const other = await startTestEngine({ databaseUrl: db.url, enabledApis: ['metadata'] });
    try {
      expect((await call(other, '/v1alpha1/pg_dump', { opts: [] })).status).to.equal(404);
    } finally {
      await other.close();
    }
  });
});
