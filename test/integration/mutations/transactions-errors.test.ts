import { expect } from 'chai';
import { failure, ok, startMutationFixture, tableOf, type MutationFixture } from './fixture.js';

describe('mutations: transactions, session and database errors (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('mut_tx');
    await f.editMetadata((doc) => {
      tableOf(doc, 'comment')['insert_permissions'] = [{ role: 'user', permission: { check: {}, columns: '*' } }];
      tableOf(doc, 'comment')['select_permissions'] = [{ role: 'user', permission: { columns: '*', filter: {} } }];
    });
  });
  after(async () => f?.close());

  const count = async (sql: string): Promise<number> => (await f.rows(`SELECT count(*)::int AS n FROM ${sql}`))[0]!['n'] as number;

  it('runs all mutation fields of a request in one transaction: a failure leaves no trace', async () => {
    const err = failure(
      await f.gql(`mutation {
        first: insert_author(objects: [{name: "Rolled back"}]) { affected_rows }
        second: update_author(where: {id: {_eq: 1}}, _set: {name: "Changed"}) { affected_rows }
        third: insert_author(objects: [{name: "Dup", email: "alan@example.com"}]) { affected_rows }
      }`),
    );
    expect(err.code).to.equal('constraint-violation');
    expect(await count(`author WHERE name IN ('Rolled back', 'Changed')`)).to.equal(0);
    expect((await f.rows('SELECT name FROM author WHERE id = 1'))[0]!['name']).to.equal('Ada Lovelace');
  });

  it('answers every field, in request order, when all succeed', async () => {
    const data = ok(
      await f.gql(`mutation {
        b: insert_author_one(object: {name: "Kept 1"}) { name }
        __typename
        a: update_author(where: {name: {_eq: "Kept 1"}}, _set: {name: "Kept 2"}) { affected_rows returning { name } }
      }`),
    );
    expect(Object.keys(data)).to.deep.equal(['b', '__typename', 'a']);
    expect(data).to.deep.equal({
      b: { name: 'Kept 1' },
      __typename: 'mutation_root',
      a: { affected_rows: 1, returning: [{ name: 'Kept 2' }] },
    });
  });

  it('makes the session visible to triggers as svc.user', async () => {
    await f.db.sql('DELETE FROM session_log');
    ok(await f.gql(`mutation { insert_author_one(object: {name: "Logged"}) { id } }`, undefined, { 'X-Svc-User-Id': '42', 'X-Svc-Org': 'acme' }));
    const rows = await f.rows('SELECT table_name, session FROM session_log');
    expect(rows).to.have.length(1);
    expect(rows[0]!['table_name']).to.equal('author');
    expect(JSON.parse(rows[0]!['session'] as string)).to.deep.equal({ 'x-svc-role': 'admin', 'x-svc-user-id': '42', 'x-svc-org': 'acme' });
    // Transaction-local: a later statement on the engine's connections does not see it.
    const [after] = await f.rows(`SELECT current_setting('svc.user', true) AS s`);
    expect(after!['s'] ?? '').to.equal('');
  });

  const violation = async (query: string): Promise<{ code: string; message: string; path: string }> => failure(await f.gql(query));

  it('maps integrity violations to constraint-violation with the reference prefixes', async () => {
    const unique = await violation(`mutation { insert_author(objects: [{name: "x", email: "ada@example.com"}]) { affected_rows } }`);
    expect(unique.code).to.equal('constraint-violation');
    expect(unique.message).to.equal('Uniqueness violation. duplicate key value violates unique constraint "author_email_key"');

    const fk = await violation(`mutation { insert_article(objects: [{title: "x", author_id: 999}]) { affected_rows } }`);
    expect(fk.code).to.equal('constraint-violation');
    expect(fk.message).to.match(/^Foreign key violation\. insert or update on table "article" violates foreign key constraint/);

    const notNull = await violation(`mutation { insert_author(objects: [{email: "nn@example.com"}]) { affected_rows } }`);
    expect(notNull.code).to.equal('constraint-violation');
    expect(notNull.message).to.match(/^Not-NULL violation\. null value in column "name"/);

    const exclusion = await violation(`mutation { insert_booking(objects: [{room: 2, during: "[3,7)"}]) { affected_rows } }`);
    expect(exclusion.code).to.equal('constraint-violation');
    expect(exclusion.message).to.match(/^Exclusion violation\. conflicting key value violates exclusion constraint/);

    const restrict = await violation(`mutation { delete_booking(where: {}) { affected_rows } }`);
    expect(restrict.code).to.equal('constraint-violation');
    expect(restrict.message).to.equal('Can not delete or update due to data being referred. booking 1 is locked');
    expect(restrict.path).to.equal('$');
  });

  it('maps a check constraint violation to permission-error, data exceptions to data-exception', async () => {
    const check = await violation(`mutation { update_article(where: {id: {_eq: 1}}, _set: {rating: 11}) { affected_rows } }`);
    expect(check.code).to.equal('permission-error');
    expect(check.message).to.equal('Check constraint violation. new row for relation "article" violates check constraint "article_rating_range"');

    const data = await violation(`mutation { insert_author(objects: [{name: "d", born: "not a date"}]) { affected_rows } }`);
    expect(data.code).to.equal('data-exception');
    expect(data.message).to.match(/invalid input syntax for type date/);
  });

  it('maps a missing upsert target to constraint-error', async () => {
    // The schema still offers the constraint; the database no longer has it.
    await f.db.sql('ALTER TABLE author DROP CONSTRAINT author_email_key');
    try {
      const err = await violation(
        `mutation { insert_author(objects: [{name: "c", email: "c@example.com"}], on_conflict: {constraint: author_email_key, update_columns: [name]}) { affected_rows } }`,
      );
      expect(err.code).to.equal('constraint-error');
      expect(err.message).to.equal('constraint "author_email_key" for table "author" does not exist');
    } finally {
      await f.db.sql('ALTER TABLE author ADD CONSTRAINT author_email_key UNIQUE (email)');
    }
  });

  it('hides other database errors behind "database query error", with detail for admins only', async () => {
    const q = `mutation { insert_comment(objects: [{article_id: 1, body: "boom"}]) { affected_rows } }`;
    const admin = await f.gql(q);
    expect(failure(admin)).to.include({ code: 'unexpected', message: 'database query error', path: '$.selectionSet.insert_comment.args.objects' });
    const internal = admin.errors![0]!.extensions.internal as { error: { message: string; status_code: string } };
    expect(internal.error).to.include({ message: 'the comment trigger exploded', status_code: 'P0001' });

    const user = await f.gql(q, undefined, { 'X-Svc-Role': 'user' });
    expect(failure(user)).to.include({ code: 'unexpected', message: 'database query error' });
    expect(user.errors![0]!.extensions).to.not.have.property('internal');
  });
});
