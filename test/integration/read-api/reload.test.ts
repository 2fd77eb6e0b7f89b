import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

describe('read API: reload_metadata picks up database changes (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('reload');
  });
  after(async () => f?.close());

  it('serves a new column after reload_metadata', async () => {
    await f.db.sql("ALTER TABLE author ADD COLUMN nickname text DEFAULT 'nick'");
    const before = await graphql(f.engine, '{ author_by_pk(id: 1) { nickname } }');
    expect(before.body.errors[0].extensions.code).to.equal('validation-failed');
    const reloaded = await metadata(f.engine, { type: 'reload_metadata', args: {} });
    expect(reloaded.body).to.deep.equal({ is_consistent: true, message: 'success' });
    expect(dataOf(await graphql(f.engine, '{ author_by_pk(id: 1) { nickname } }'))).to.deep.equal({ author_by_pk: { nickname: 'nick' } });
  });

  it('turns a dropped table into an inconsistent object and keeps serving the rest', async () => {
    await f.db.sql('DROP TABLE comment');
    const reloaded = await metadata(f.engine, { type: 'reload_metadata', args: {} });
    expect(reloaded.body.is_consistent).to.equal(false);
    const types = reloaded.body.inconsistent_objects.map((o: { type: string; name: string }) => `${o.type}: ${o.name}`);
    expect(types).to.include('table: table comment in source default');
    expect(dataOf(await graphql(f.engine, '{ author_by_pk(id: 2) { name articles(limit: 1, order_by: {id: asc}) { title } } }'))).to.deep.equal({
      author_by_pk: { name: 'Alan Turing', articles: [{ title: 'On Computable Numbers' }] },
    });
    const gone = await graphql(f.engine, '{ comment { id } }');
    expect(gone.body.errors[0].extensions.code).to.equal('validation-failed');

    const dropped = await metadata(f.engine, { type: 'drop_inconsistent_metadata', args: {} });
    expect(dropped.status).to.equal(200);
    const after = await metadata(f.engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(after.body).to.deep.equal({ is_consistent: true, inconsistent_objects: [] });
  });
});
