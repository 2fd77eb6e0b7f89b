/**
 * run_sql results and errors, over HTTP against the read-API sample schema: the reference
 * engine's TuplesOk/CommandOk shapes, values as PostgreSQL text, read-only transactions, the
 * `postgres-error` answer, and where the operation is (and is not) served.
 */
import { expect } from 'chai';
import { call, metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { runSql } from './helpers.js';

describe('run_sql: results and errors', () => {
  let fx: ReadApiFixture;
  before(async () => {
    fx = await startReadApiFixture('run_sql_results');
  });
  after(async () => {
    await fx?.close();
  });

  const count = async (table: string): Promise<string> => {
    const res = await runSql(fx.engine, { sql: `SELECT count(*) FROM ${table}` });
    return (res.body as { result: string[][] }).result[1]![0]!;
  };

  it('returns only the last statement, as a header row and rows of text values', async () => {
    const res = await runSql(fx.engine, {
      sql: `SELECT 1 AS ignored;
            SELECT id, name, email, rating, born, meta, tags FROM author WHERE id IN (3, 4) ORDER BY id`,
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      result_type: 'TuplesOk',
      result: [
        ['id', 'name', 'email', 'rating', 'born', 'meta', 'tags'],
        ['3', 'Grace Hopper', 'NULL', '5', '1906-12-09', '{"lang": "en"}', '{navy,cobol}'],
        ['4', 'Edsger Dijkstra', 'ewd@example.nl', '3', 'NULL', 'NULL', '{}'],
      ],
    });
  });

  it('renders booleans, numerics and big integers as PostgreSQL prints them', async () => {
    const res = await runSql(fx.engine, { sql: 'SELECT is_published, score, views, NULL::text AS nothing FROM article WHERE id = 1' });
    expect(res.body).to.deep.equal({
      result_type: 'TuplesOk',
      result: [['is_published', 'score', 'views', 'nothing'], ['t', '99.50', '9007199254740993', 'NULL']],
    });
  });

  it('answers a query without rows with the header alone, and a command with CommandOk', async () => {
    expect((await runSql(fx.engine, { sql: 'SELECT id FROM author WHERE false' })).body).to.deep.equal({
      result_type: 'TuplesOk',
      result: [['id']],
    });
    const cmd = await runSql(fx.engine, { sql: 'SELECT 1; UPDATE author SET rating = rating WHERE id = 0' });
    expect(cmd.body).to.deep.equal({ result_type: 'CommandOk', result: null });
    const returning = await runSql(fx.engine, { sql: "UPDATE author SET rating = rating WHERE id = 1 RETURNING id, 'x' AS y" });
    expect(returning.body).to.deep.equal({ result_type: 'TuplesOk', result: [['id', 'y'], ['1', 'x']] });
  });

  it('makes the session visible to the SQL as the transaction-local svc.user setting', async () => {
    const res = await runSql(fx.engine, { sql: "SELECT current_setting('svc.user')::json AS s" }, { 'X-Svc-User-Id': '42' });
    const session = JSON.parse((res.body as { result: string[][] }).result[1]![0]!);
    expect(session).to.deep.equal({ 'x-svc-user-id': '42', 'x-svc-role': 'admin' });
    // Each request sees its own session only.
    const next = await runSql(fx.engine, { sql: "SELECT current_setting('svc.user') AS s" });
    expect(JSON.parse((next.body as { result: string[][] }).result[1]![0]!)).to.deep.equal({ 'x-svc-role': 'admin' });
  });

  it('runs all statements in one transaction: a failing statement undoes the ones before it', async () => {
    const before = await count('author');
    const res = await runSql(fx.engine, { sql: "INSERT INTO author (name) VALUES ('x');\nSELECT * FROM no_such_table" });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      path: '$.args',
      error: 'query execution failed',
      code: 'postgres-error',
      internal: {
        statement: "INSERT INTO author (name) VALUES ('x');\nSELECT * FROM no_such_table",
        prepared: false,
        error: {
          exec_status: 'FatalError',
          hint: null,
          message: 'relation "no_such_table" does not exist',
          status_code: '42P01',
          description: null,
        },
        arguments: [],
      },
    });
    expect(await count('author')).to.equal(before);
  });

  it('reports the database detail of a constraint violation in internal', async () => {
    const res = await runSql(fx.engine, { sql: 'INSERT INTO article (author_id, title) VALUES (999, \'orphan\')' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'postgres-error', error: 'query execution failed', path: '$.args' });
    const error = (res.body as { internal: { error: Record<string, unknown> } }).internal.error;
    expect(error).to.deep.include({ status_code: '23503', description: 'Key (author_id)=(999) is not present in table "author".' });
  });

  it('read_only: selects succeed, writes fail with the database error and change nothing', async () => {
    const ok = await runSql(fx.engine, { sql: 'SELECT count(*) AS n FROM comment', read_only: true });
    expect(ok.body).to.deep.equal({ result_type: 'TuplesOk', result: [['n'], ['7']] });
    // A keyword inside a string does not make a statement a write.
    const quoted = await runSql(fx.engine, { sql: "SELECT ' alter ' AS drop", read_only: true });
    expect(quoted.body).to.deep.equal({ result_type: 'TuplesOk', result: [['drop'], [' alter ']] });
    const res = await runSql(fx.engine, { sql: 'DROP TABLE comment', read_only: true });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'postgres-error', error: 'query execution failed', path: '$.args' });
    expect((res.body as { internal: { error: Record<string, unknown> } }).internal.error).to.deep.include({
      message: 'cannot execute DROP TABLE in a read-only transaction',
      status_code: '25006',
    });
    const del = await runSql(fx.engine, { sql: 'DELETE FROM comment', read_only: true });
    expect(del.status).to.equal(400);
    expect(await count('comment')).to.equal('7');
  });

  it('is admin only', async () => {
    const res = await runSql(fx.engine, { sql: 'SELECT 1' }, { 'X-Svc-Role': 'user' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'access-denied', error: 'restricted access : admin only' });
  });

  it('is served on /v2/query as run_sql and pg_run_sql, on /v1/query as run_sql, not on /v1/metadata', async () => {
    const sql = { sql: 'SELECT 1 AS one' };
    const expected = { result_type: 'TuplesOk', result: [['one'], ['1']] };
    expect((await call(fx.engine, '/v2/query', { type: 'pg_run_sql', args: sql })).body).to.deep.equal(expected);
    expect((await call(fx.engine, '/v1/query', { type: 'run_sql', args: sql })).body).to.deep.equal(expected);
    const bulk = await call(fx.engine, '/v2/query', { type: 'bulk', args: [{ type: 'run_sql', args: sql }, { type: 'run_sql', args: sql }] });
    expect(bulk.body).to.deep.equal([expected, expected]);
    const onMetadata = await metadata(fx.engine, { type: 'run_sql', args: sql });
    expect(onMetadata.status).to.equal(400);
    expect(onMetadata.body).to.deep.include({ code: 'parse-failed', error: 'unknown operation type "run_sql" on /v1/metadata' });
    const legacyPrefixed = await call(fx.engine, '/v1/query', { type: 'pg_run_sql', args: sql });
    expect(legacyPrefixed.status).to.equal(400);
  });

  it('checks its arguments', async () => {
    const missing = await runSql(fx.engine, {});
    expect(missing.status).to.equal(400);
    expect(missing.body).to.deep.equal({ path: '$.args', error: 'key "sql" not found', code: 'parse-failed' });
    const badFlag = await runSql(fx.engine, { sql: 'SELECT 1', read_only: 'yes' });
    expect(badFlag.body).to.deep.equal({ path: '$.args.read_only', error: 'expected Boolean, but encountered String', code: 'parse-failed' });
    const noSource = await runSql(fx.engine, { sql: 'SELECT 1', source: 'elsewhere' });
    expect(noSource.body).to.deep.equal({ path: '$.args', error: 'source with name "elsewhere" does not exist', code: 'not-exists' });
  });
});
