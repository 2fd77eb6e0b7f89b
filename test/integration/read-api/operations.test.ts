import { expect } from 'chai';
import { call, graphql, metadata } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

const ENUM_SQL = `
CREATE TABLE article_status (value text PRIMARY KEY, comment text);
INSERT INTO article_status VALUES ('draft', 'not yet public'), ('published', 'visible to readers');
ALTER TABLE article ADD COLUMN status text REFERENCES article_status(value);
UPDATE article SET status = CASE WHEN is_published THEN 'published' ELSE 'draft' END;
`;

describe('read API: metadata operations end to end (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('ops_e2e');
    await f.db.sql(ENUM_SQL);
  });
  after(async () => f?.close());

  const rootFields = async (): Promise<string[]> =>
    dataOf(await graphql(f.engine, '{ __schema { queryType { fields { name } } } }')).__schema.queryType.fields.map((x: { name: string }) => x.name);
  const exported = async () => (await metadata(f.engine, { type: 'export_metadata', args: {} })).body;
  const tableEntry = async (name: string) =>
    (await exported()).sources[0].tables.find((t: { table: { name: string } }) => t.table.name === name);

  it('pg_set_table_is_enum turns a table into a GraphQL enum wherever its key is referenced', async () => {
    const tracked = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'article_status', is_enum: false } });
    expect(tracked.status, JSON.stringify(tracked.body)).to.equal(200);
    await metadata(f.engine, { type: 'reload_metadata', args: {} });
    const res = await metadata(f.engine, { type: 'pg_set_table_is_enum', args: { table: 'article_status', is_enum: true } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const t = dataOf(await graphql(f.engine, '{ __type(name: "article_status_enum") { kind enumValues { name description } } }'));
    expect(t.__type.kind).to.equal('ENUM');
    expect(t.__type.enumValues).to.deep.equal([
      { name: 'draft', description: 'not yet public' },
      { name: 'published', description: 'visible to readers' },
    ]);
    const data = dataOf(await graphql(f.engine, '{ article(where: {status: {_eq: draft}}) { id status } }'));
    expect(data.article).to.deep.equal([{ id: 5, status: 'draft' }]);
    // The enum table itself stays queryable, as in the reference engine.
    expect(await rootFields()).to.include('article_status');
  });

  it('pg_set_table_customization replaces the customization', async () => {
    const res = await metadata(f.engine, {
      type: 'pg_set_table_customization',
      args: { table: 'comment', configuration: { custom_root_fields: { select: 'remarks' }, column_config: { body: { custom_name: 'text' } } } },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(dataOf(await graphql(f.engine, '{ remarks(where: {id: {_eq: 6}}) { text } }'))).to.deep.equal({ remarks: [{ text: 'controversial' }] });
    await metadata(f.engine, { type: 'pg_set_table_customization', args: { table: 'comment', configuration: {} } });
    expect(await rootFields()).to.include('comment').and.not.include('remarks');
  });

  it('pg_set_gateway_federation_config stores and clears the federation setting', async () => {
    const set = await metadata(f.engine, { type: 'pg_set_gateway_federation_config', args: { table: 'author', gateway_federation_config: { enable: 'v1' } } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect((await tableEntry('author')).apollo_federation_config).to.deep.equal({ enable: 'v1' });
    await metadata(f.engine, { type: 'pg_set_gateway_federation_config', args: { table: 'author', gateway_federation_config: null } });
    expect(await tableEntry('author')).to.not.have.property('apollo_federation_config');
  });

  it('sets, renames and drops relationships, refusing drops that others depend on', async () => {
    const comment = await metadata(f.engine, { type: 'pg_set_relationship_comment', args: { table: 'author', relationship: 'articles', comment: 'what they wrote' } });
    expect(comment.status, JSON.stringify(comment.body)).to.equal(200);
    const t = dataOf(await graphql(f.engine, '{ __type(name: "author") { fields { name description } } }'));
    expect(t.__type.fields.find((x: { name: string }) => x.name === 'articles').description).to.equal('what they wrote');

    const renamed = await metadata(f.engine, { type: 'pg_rename_relationship', args: { table: 'author', name: 'articles', new_name: 'writings' } });
    expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
    expect(dataOf(await graphql(f.engine, '{ author_by_pk(id: 3) { writings { id } } }'))).to.deep.equal({ author_by_pk: { writings: [{ id: 6 }] } });

    const clash = await metadata(f.engine, { type: 'pg_create_object_relationship', args: { table: 'article', name: 'title', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(clash.status).to.equal(400);
    expect(clash.body.code).to.equal('already-exists');

    const dropped = await metadata(f.engine, { type: 'pg_drop_relationship', args: { table: 'author', relationship: 'writings' } });
    expect(dropped.status, JSON.stringify(dropped.body)).to.equal(200);
    const gone = await graphql(f.engine, '{ author { writings { id } } }');
    expect(gone.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('refuses to untrack a table others depend on unless cascaded', async () => {
    const refused = await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'article' } });
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('dependency-error');
    expect(refused.body.error).to.contain('comment.article');
    const cascaded = await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'article', cascade: true } });
    expect(cascaded.status, JSON.stringify(cascaded.body)).to.equal(200);
    expect(await rootFields()).to.not.include('article');
    expect((await tableEntry('comment')).object_relationships?.map((r: { name: string }) => r.name) ?? []).to.not.include('article');
  });

  it('answers the errors users expect from tracking', async () => {
    const again = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'author' } });
    expect(again.body).to.include({ code: 'already-tracked', error: 'view/table already tracked: "author"' });
    const missing = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'nope' } });
    expect(missing.status).to.equal(400);
    expect(missing.body.error).to.contain('no such table/view exists in source: "nope"');
    const badName = await metadata(f.engine, { type: 'pg_track_table', args: { table: 'article', configuration: { custom_name: 'not valid' } } });
    // A custom name is a GraphQL name by type, so a bad one fails parsing, as in the reference.
    expect(badName.body.code).to.equal('parse-failed');
    const noSource = await metadata(f.engine, { type: 'pg_track_table', args: { source: 'elsewhere', table: 'author' } });
    expect(noSource.body.code).to.equal('not-exists');
  });

  it('pg_update_source changes the customization of a source', async () => {
    const res = await metadata(f.engine, { type: 'pg_update_source', args: { name: 'default', customization: { root_fields: { prefix: 'db_' } } } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await rootFields()).to.include('db_author');
    await metadata(f.engine, { type: 'pg_update_source', args: { name: 'default', customization: {} } });
    expect(await rootFields()).to.include('author');
  });

  it('serves the legacy /v1/query forms of tracking and relationships', async () => {
    const q = (body: unknown) => call(f.engine, '/v1/query', body);
    expect((await q({ type: 'track_table', args: { table: 'article' } })).status).to.equal(200);
    const rel = await q({ type: 'create_object_relationship', args: { table: 'article', name: 'writer', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(rel.status, JSON.stringify(rel.body)).to.equal(200);
    const custom = await q({ type: 'set_table_custom_fields', args: { table: 'article', custom_root_fields: { select: 'posts' }, custom_column_names: { title: 'headline' } } });
    expect(custom.status, JSON.stringify(custom.body)).to.equal(200);
    expect(dataOf(await graphql(f.engine, '{ posts(where: {id: {_eq: 7}}) { headline writer { name } } }'))).to.deep.equal({
      posts: [{ headline: 'Go To Statement Considered Harmful', writer: { name: 'Edsger Dijkstra' } }],
    });
    expect((await q({ type: 'rename_relationship', args: { table: 'article', name: 'writer', new_name: 'by' } })).status).to.equal(200);
    expect((await q({ type: 'drop_relationship', args: { table: 'article', relationship: 'by' } })).status).to.equal(200);
    expect((await q({ type: 'untrack_table', args: { table: 'article' } })).status).to.equal(200);
    // Legacy names are not part of the metadata API.
    const onMetadata = await metadata(f.engine, { type: 'track_table', args: { table: 'article' } });
    expect(onMetadata.body.code).to.equal('parse-failed');
  });

  it('drops a source with cascade and refuses to drop an unknown one', async () => {
    const add = await metadata(f.engine, { type: 'pg_add_source', args: { name: 'extra', configuration: { connection_info: { database_url: f.db.url } } } });
    expect(add.status, JSON.stringify(add.body)).to.equal(200);
    const again = await metadata(f.engine, { type: 'pg_add_source', args: { name: 'extra', configuration: { connection_info: { database_url: f.db.url } } } });
    expect(again.body.code).to.equal('already-exists');
    const drop = await metadata(f.engine, { type: 'pg_drop_source', args: { name: 'extra', cascade: true } });
    expect(drop.status).to.equal(200);
    const unknown = await metadata(f.engine, { type: 'pg_drop_source', args: { name: 'extra' } });
    expect(unknown.body.code).to.equal('not-exists');
  });
});
