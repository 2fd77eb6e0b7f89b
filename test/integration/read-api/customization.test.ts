import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

describe('read API: source and table customization (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('custom');
    // A second source on the same database, customized, served side by side with `default`.
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        {
          type: 'pg_add_source',
          args: {
            name: 'library',
            configuration: { connection_info: { database_url: f.db.url } },
            customization: { root_fields: { namespace: 'lib', prefix: 'x_', suffix: '_y' }, type_names: { prefix: 'L_', suffix: '_T' } },
          },
        },
        {
          type: 'pg_track_table',
          args: {
            source: 'library',
            table: 'article',
            configuration: {
              identifier: 'post',
              custom_root_fields: { select: 'posts', select_by_pk: 'post', select_aggregate: 'post_stats' },
              column_config: { title: { custom_name: 'headline' }, author_id: { custom_name: 'writerId' } },
            },
          },
        },
        { type: 'pg_track_table', args: { source: 'library', table: 'author', configuration: { custom_name: 'writer' } } },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  const rootFields = async (): Promise<string[]> =>
    dataOf(await graphql(f.engine, '{ __schema { queryType { fields { name } } } }')).__schema.queryType.fields.map(
      (x: { name: string }) => x.name,
    );

  it('groups a namespaced source under one root field, next to the default source', async () => {
    const names = await rootFields();
    expect(names).to.include.members(['author', 'article', 'lib']);
    expect(names).to.not.include('posts');
  });

  it('applies custom root field names and column names, with the source root-field prefix/suffix on top', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ lib { x_posts_y(where: {headline: {_ilike: "%numbers%"}}, order_by: {writerId: asc}) { id headline writerId } x_post_y(id: 1) { headline } } }`),
    );
    expect(data.lib.x_posts_y).to.deep.equal([{ id: 3, headline: 'On Computable Numbers', writerId: 2 }]);
    expect(data.lib.x_post_y).to.deep.equal({ headline: 'Notes on the Analytical Engine' });
    const fields = dataOf(await graphql(f.engine, '{ ns: __schema { queryType { fields { name type { name } } } } }'));
    const lib = fields.ns.queryType.fields.find((x: { name: string }) => x.name === 'lib');
    const nsFields = dataOf(await graphql(f.engine, `{ __type(name: "${lib.type.name}") { fields { name } } }`)).__type.fields.map((x: { name: string }) => x.name);
    expect(nsFields).to.include.members(['x_posts_y', 'x_post_y', 'x_post_stats_y', 'x_writer_y', 'x_writer_by_pk_y', 'x_writer_aggregate_y']);
  });

  it('applies the type-name prefix/suffix to the table types', async () => {
    const t = dataOf(await graphql(f.engine, '{ p: __type(name: "L_post_T") { name } w: __type(name: "L_writer_T") { name } plain: __type(name: "post") { name } }'));
    expect(t).to.deep.equal({ p: { name: 'L_post_T' }, w: { name: 'L_writer_T' }, plain: null });
  });

  it('serves the aggregate under its custom name', async () => {
    const data = dataOf(await graphql(f.engine, '{ lib { x_post_stats_y { aggregate { count } } } }'));
    expect(data.lib.x_post_stats_y.aggregate.count).to.equal(9);
  });

  it('renames the source and keeps every setting', async () => {
    const res = await metadata(f.engine, { type: 'rename_source', args: { name: 'library', new_name: 'books' } });
    expect(res.status).to.equal(200);
    const data = dataOf(await graphql(f.engine, '{ lib { x_post_y(id: 3) { headline } } }'));
    expect(data.lib.x_post_y.headline).to.equal('On Computable Numbers');
  });

  it('drops the source and its fields disappear', async () => {
    const res = await metadata(f.engine, { type: 'pg_drop_source', args: { name: 'books' } });
    expect(res.status).to.equal(200);
    expect(await rootFields()).to.not.include('lib');
  });
});
