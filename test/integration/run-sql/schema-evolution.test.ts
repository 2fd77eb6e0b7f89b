/**
 * run_sql that changes the schema under tracked tables: the GraphQL API follows at once (no
 * reload_metadata), renamed tables and columns keep their relationships, permissions and custom
 * names, and `/v1/query` bulks mix run_sql with metadata operations.
 */
import { expect } from 'chai';
import { call, graphql } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { addToTable, editMetadata, exportMetadata, runSql, tableEntry } from './helpers.js';

describe('run_sql: schema evolution', () => {
  let fx: ReadApiFixture;
  beforeEach(async () => {
    fx = await startReadApiFixture('run_sql_evolve');
  });
  afterEach(async () => {
    await fx?.close();
  });

  it('makes a new column queryable right away', async () => {
    const res = await runSql(fx.engine, { sql: "ALTER TABLE author ADD COLUMN nickname text NOT NULL DEFAULT 'anon'" });
    expect(res.status).to.equal(200);
    expect(dataOf(await graphql(fx.engine, '{ author(where: {id: {_eq: 1}}) { nickname } }'))).to.deep.equal({ author: [{ nickname: 'anon' }] });
  });

  it('keeps relationships, permissions and custom names of a renamed table; its GraphQL name follows', async () => {
    await addToTable(fx.engine, 'author', {
      configuration: { column_config: { name: { custom_name: 'displayName' } } },
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
    });
    await addToTable(fx.engine, 'comment', {
      select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { _exists: { _table: 'author', _where: { id: { _eq: 1 } } } } } }],
    });
    const res = await runSql(fx.engine, { sql: 'ALTER TABLE author RENAME TO writer' });
    expect(res.status).to.equal(200);

    const doc = await exportMetadata(fx.engine);
    expect(tableEntry(doc, 'author')).to.equal(undefined);
    const writer = tableEntry(doc, 'writer')!;
    expect(writer.configuration).to.deep.equal({ column_config: { name: { custom_name: 'displayName' } } });
    expect(writer.array_relationships!.map((r) => r.name)).to.deep.equal(['articles']);
    expect(writer.select_permissions).to.have.length(1);
    const comment = tableEntry(doc, 'comment')!;
    expect(comment.object_relationships!.find((r) => r.name === 'commenter')!.using).to.deep.equal({
      manual_configuration: { remote_table: 'writer', column_mapping: { author_id: 'id' } },
    });
    expect(comment.select_permissions![0]!.permission.filter).to.deep.equal({ _exists: { _table: 'writer', _where: { id: { _eq: 1 } } } });

    const data = dataOf(
      await graphql(fx.engine, '{ writer(where: {id: {_eq: 1}}) { displayName articles(limit: 1, order_by: {id: asc}) { author { id } } } comment(where: {id: {_eq: 1}}) { commenter { id } } }'),
    );
    expect(data).to.deep.equal({
      writer: [{ displayName: 'Ada Lovelace', articles: [{ author: { id: 1 } }] }],
      comment: [{ commenter: { id: 2 } }],
    });
    const old = await graphql(fx.engine, '{ author { id } }');
    expect(old.body).to.have.nested.property('errors[0].extensions.code', 'validation-failed');
    const asUser = await graphql(fx.engine, '{ writer { id displayName } }', undefined, { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' });
    expect(dataOf(asUser)).to.deep.equal({ writer: [{ id: 2, displayName: 'Alan Turing' }] });
  });

  it('keeps the GraphQL name of a renamed table that has a custom name', async () => {
    await editMetadata(fx.engine, (doc) => {
      tableEntry(doc, 'author')!.configuration = { custom_name: 'person' };
    });
    expect((await runSql(fx.engine, { sql: 'ALTER TABLE author RENAME TO writer' })).status).to.equal(200);
    expect(dataOf(await graphql(fx.engine, '{ person_by_pk(id: 1) { name } }'))).to.deep.equal({ person_by_pk: { name: 'Ada Lovelace' } });
  });

  it('keeps metadata on renamed columns, including a key column other tables map to', async () => {
    await addToTable(fx.engine, 'author', {
      configuration: { column_config: { email: { custom_name: 'emailAddress' } } },
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'email'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
    });
    await addToTable(fx.engine, 'article', {
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { author: { id: { _eq: 'X-Svc-User-Id' } } } } }],
    });
    const res = await runSql(fx.engine, {
      sql: 'ALTER TABLE author RENAME COLUMN email TO mail; ALTER TABLE author RENAME COLUMN id TO author_id',
    });
    expect(res.status).to.equal(200);

    const doc = await exportMetadata(fx.engine);
    const author = tableEntry(doc, 'author')!;
    expect(author.configuration).to.deep.equal({ column_config: { mail: { custom_name: 'emailAddress' } } });
    expect(author.select_permissions![0]!.permission).to.deep.equal({ columns: ['author_id', 'mail'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } });
    expect(tableEntry(doc, 'article')!.select_permissions![0]!.permission.filter).to.deep.equal({ author: { author_id: { _eq: 'X-Svc-User-Id' } } });
    expect(tableEntry(doc, 'comment')!.object_relationships!.find((r) => r.name === 'commenter')!.using).to.deep.equal({
      manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'author_id' } },
    });

    const data = dataOf(await graphql(fx.engine, '{ author_by_pk(author_id: 1) { emailAddress articles(limit: 1) { id } } comment(where: {id: {_eq: 1}}) { commenter { author_id } } }'));
    expect(data).to.deep.equal({ author_by_pk: { emailAddress: 'ada@example.com', articles: [{ id: 1 }] }, comment: [{ commenter: { author_id: 2 } }] });
    const asUser = await graphql(fx.engine, '{ article(order_by: {id: asc}) { id } }', undefined, { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' });
    expect(dataOf(asUser)).to.deep.equal({ article: [{ id: 3 }, { id: 4 }, { id: 5 }] });
  });

  it('runs in /v1/query bulks with metadata operations; the SQL commits even if a later operation fails', async () => {
    const ok = await call(fx.engine, '/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: "CREATE TABLE tag (id serial PRIMARY KEY, label text); INSERT INTO tag (label) VALUES ('x')" } },
        { type: 'track_table', args: { schema: 'public', name: 'tag' } },
      ],
    });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.deep.equal([{ result_type: 'CommandOk', result: null }, { message: 'success' }]);
    expect(dataOf(await graphql(fx.engine, '{ tag { label } }'))).to.deep.equal({ tag: [{ label: 'x' }] });

    const failing = await call(fx.engine, '/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE label (id int PRIMARY KEY)' } },
        { type: 'track_table', args: { schema: 'public', name: 'label' } },
        { type: 'track_table', args: { schema: 'public', name: 'no_such_table' } },
      ],
    });
    expect(failing.status).to.equal(400);
    expect(failing.body).to.have.property('path').that.matches(/^\$\.args\[2\]/);
    // Metadata is atomic across the bulk; SQL that ran is not (as in the reference engine).
    expect(tableEntry(await exportMetadata(fx.engine), 'label')).to.equal(undefined);
    const exists = await runSql(fx.engine, { sql: "SELECT to_regclass('public.label') IS NOT NULL AS here" });
    expect((exists.body as { result: string[][] }).result[1]).to.deep.equal(['t']);
  });

  it('lets later operations of a bulk see tables the SQL created, as migrations do', async () => {
    const bulk = await call(fx.engine, '/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE first_t (id int PRIMARY KEY)' } },
        { type: 'track_table', args: { schema: 'public', name: 'first_t' } },
        { type: 'run_sql', args: { sql: 'CREATE TABLE second_t (id int PRIMARY KEY)' } },
        { type: 'track_table', args: { schema: 'public', name: 'second_t' } },
        { type: 'run_sql', args: { sql: 'ALTER TABLE first_t ADD COLUMN extra text' } },
      ],
    });
    expect(bulk.status).to.equal(200);
    expect(dataOf(await graphql(fx.engine, '{ first_t { id extra } second_t { id } }'))).to.deep.equal({ first_t: [], second_t: [] });
  });
});
