import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { failure, ok, startMutationFixture, tableOf, type MutationFixture } from './fixture.js';

describe('mutations: custom names and source customization (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('mut_custom');
    await f.editMetadata((doc) => {
      tableOf(doc, 'author')['configuration'] = {
        custom_root_fields: {
          insert: 'addAuthors',
          insert_one: 'addAuthor',
          update: 'changeAuthors',
          update_by_pk: 'changeAuthor',
          update_many: 'changeAuthorsInTurn',
          delete: 'removeAuthors',
          delete_by_pk: 'removeAuthor',
        },
        column_config: { name: { custom_name: 'fullName' }, id: { custom_name: 'authorId' } },
      };
    });
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
        { type: 'pg_track_table', args: { source: 'library', table: 'booking' } },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  it('uses custom root field names and custom column names everywhere', async () => {
    const data = ok(
      await f.gql(`mutation {
        addAuthor(object: {fullName: "Custom"}) { authorId fullName }
        addAuthors(objects: [{fullName: "Custom 2"}], on_conflict: {constraint: author_pkey, update_columns: [fullName]}) { affected_rows }
        changeAuthors(where: {fullName: {_eq: "Custom"}}, _set: {fullName: "Custom 1"}) { returning { fullName } }
        changeAuthorsInTurn(updates: [{where: {fullName: {_eq: "Custom 2"}}, _set: {rating: 7}}]) { affected_rows }
      }`),
    );
    expect(data.addAuthor.fullName).to.equal('Custom');
    expect(data.addAuthors.affected_rows).to.equal(1);
    expect(data.changeAuthors.returning).to.deep.equal([{ fullName: 'Custom 1' }]);
    expect(data.changeAuthorsInTurn).to.deep.equal([{ affected_rows: 1 }]);
    const id = data.addAuthor.authorId as number;
    const byPk = ok(
      await f.gql(`mutation ($id: Int!) {
        changeAuthor(pk_columns: {authorId: $id}, _inc: {rating: 1}) { authorId rating }
        removeAuthor(authorId: $id) { fullName }
      }`, { id }),
    );
    expect(byPk).to.deep.equal({ changeAuthor: { authorId: id, rating: null }, removeAuthor: { fullName: 'Custom 1' } });
    ok(await f.gql(`mutation { removeAuthors(where: {fullName: {_eq: "Custom 2"}}) { affected_rows } }`));
    expect(await f.rows(`SELECT id FROM author WHERE name LIKE 'Custom%'`)).to.deep.equal([]);
    expect(failure(await f.gql(`mutation { insert_author(objects: []) { affected_rows } }`)).code).to.equal('validation-failed');
  });

  it('puts a namespaced source under its namespace with its prefixes, in its own transaction', async () => {
    const data = ok(
      await f.gql(`mutation {
        lib { __typename x_insert_booking_y(objects: [{room: 3, during: "[100,110)"}]) { __typename affected_rows returning { room } } }
        addAuthor(object: {fullName: "Beside"}) { fullName }
      }`),
    );
    expect(data.lib).to.deep.equal({
      __typename: 'L_lib_mutation_frontend_T',
      x_insert_booking_y: { __typename: 'L_booking_mutation_response_T', affected_rows: 1, returning: [{ room: 3 }] },
    });
    expect(data.addAuthor).to.deep.equal({ fullName: 'Beside' });
    const type = ok(await f.gql('{ __type(name: "L_booking_insert_input_T") { name } }'));
    expect(type.__type).to.deep.equal({ name: 'L_booking_insert_input_T' });
  });
});
