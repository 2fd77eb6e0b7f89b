/**
 * Mutations sent in one round trip (the session and the statements written at once, in the
 * extended protocol's implicit transaction block, each checked write failing by itself when its
 * check fails) keep the semantics of running them one by one: every field of a request in one
 * transaction, a failed permission check rolls back every field, triggers (row and statement
 * level) see the session. The staged path (answers reading relationships) is checked alongside.
 */
import { expect } from 'chai';
import { failure, ok, startMutationFixture, tableOf, type MutationFixture } from './fixture.js';

const USER = { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' };

describe('mutations in one round trip: transaction, checks and session (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('perf_one_trip');
    await f.editMetadata((doc) => {
      Object.assign(tableOf(doc, 'author'), {
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: {} } }],
        update_permissions: [
          { role: 'user', permission: { columns: ['name'], filter: { id: { _eq: 'X-Svc-User-Id' } }, check: { name: { _neq: 'Forbidden' } } } },
        ],
      });
      Object.assign(tableOf(doc, 'article'), {
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'title', 'rating', 'author_id'], filter: {} } }],
        update_permissions: [
          { role: 'user', permission: { columns: ['title', 'rating'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, check: { rating: { _lte: 5 } } } },
        ],
      });
    });
  });
  after(async () => f?.close());

  const nameOf = async (id: number): Promise<string> => (await f.rows('SELECT name FROM author WHERE id = $1', [id]))[0]!['name'] as string;

  it('rolls back the first field when the second fails its permission check', async () => {
    const err = failure(
      await f.gql(
        `mutation {
          first: update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Renamed"}) { id name }
          second: update_article(where: {id: {_eq: 3}}, _set: {rating: 9}) { affected_rows }
        }`,
        undefined,
        USER,
      ),
    );
    expect(err).to.include({ code: 'permission-error', message: 'check constraint of an insert/update permission has failed', path: '$' });
    expect(await nameOf(2)).to.equal('Alan Turing');
    expect((await f.rows('SELECT rating FROM article WHERE id = 3'))[0]!['rating']).to.equal(5);
  });

  it('rolls back the first field when the second fails in the database', async () => {
    const err = failure(
      await f.gql(`mutation {
        first: update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Renamed"}) { id }
        second: update_article(where: {id: {_eq: 3}}, _set: {rating: 11}) { affected_rows }
      }`),
    );
    expect(err.code).to.equal('permission-error');
    expect(err.message).to.match(/^Check constraint violation\./);
    expect(await nameOf(2)).to.equal('Alan Turing');
  });

  it('fails the check of the first field before the second runs', async () => {
    await f.db.sql('DELETE FROM session_log');
    const err = failure(
      await f.gql(
        `mutation {
          first: update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Forbidden"}) { id }
          second: update_article(where: {id: {_eq: 3}}, _set: {title: "Not reached"}) { affected_rows }
        }`,
        undefined,
        USER,
      ),
    );
    expect(err.code).to.equal('permission-error');
    expect(await nameOf(2)).to.equal('Alan Turing');
    expect((await f.rows('SELECT title FROM article WHERE id = 3'))[0]!['title']).to.equal('On Computable Numbers');
    expect(await f.rows('SELECT * FROM session_log')).to.deep.equal([]);
  });

  it('commits every field when the checks pass, and triggers see the role session', async () => {
    await f.db.sql('DELETE FROM session_log');
    const data = ok(
      await f.gql(
        `mutation {
          a: update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Alan M. Turing"}) { name }
          b: update_article_many(updates: [{where: {id: {_eq: 3}}, _set: {rating: 4}}, {where: {id: {_eq: 4}}, _set: {rating: 3}}]) { affected_rows }
        }`,
        undefined,
        USER,
      ),
    );
    expect(data).to.deep.equal({ a: { name: 'Alan M. Turing' }, b: [{ affected_rows: 1 }, { affected_rows: 1 }] });
    const log = await f.rows('SELECT table_name, session FROM session_log');
    expect(log).to.have.length(1);
    expect(JSON.parse(log[0]!['session'] as string)).to.deep.equal({ 'x-svc-role': 'user', 'x-svc-user-id': '2' });
    const [after] = await f.rows(`SELECT current_setting('svc.user', true) AS s, current_setting('svc.mutation_check', true) AS c`);
    expect(after!['s'] ?? '').to.equal('');
    expect(after!['c'] ?? '').to.equal('');
    await f.db.sql(`UPDATE author SET name = 'Alan Turing' WHERE id = 2; UPDATE article SET rating = 5 WHERE id = 3; UPDATE article SET rating = 4 WHERE id = 4`);
  });

  it('rolls back an update_many whose second update fails its check', async () => {
    const err = failure(
      await f.gql(
        `mutation { update_article_many(updates: [{where: {id: {_eq: 3}}, _set: {title: "Changed"}}, {where: {id: {_eq: 4}}, _set: {rating: 8}}]) { affected_rows } }`,
        undefined,
        USER,
      ),
    );
    expect(err.code).to.equal('permission-error');
    expect((await f.rows('SELECT title FROM article WHERE id = 3'))[0]!['title']).to.equal('On Computable Numbers');
  });

  it('keeps the same semantics on the staged path (an answer reading a relationship)', async () => {
    await f.db.sql('DELETE FROM session_log');
    const err = failure(
      await f.gql(`mutation {
        first: insert_author_one(object: {name: "Staged"}) { id articles { id } }
        second: update_article(where: {id: {_eq: 3}}, _set: {rating: 11}) { affected_rows }
      }`, undefined, { 'X-Svc-User-Id': '7' }),
    );
    expect(err.code).to.equal('permission-error');
    expect(await f.rows(`SELECT id FROM author WHERE name = 'Staged'`)).to.deep.equal([]);
    const data = ok(await f.gql(`mutation { insert_author_one(object: {name: "Staged"}) { name articles { id } } }`, undefined, { 'X-Svc-User-Id': '7' }));
    expect(data).to.deep.equal({ insert_author_one: { name: 'Staged', articles: [] } });
    const log = await f.rows('SELECT session FROM session_log');
    expect(log.map((r) => JSON.parse(r['session'] as string))).to.deep.equal([{ 'x-svc-role': 'admin', 'x-svc-user-id': '7' }]);
  });
  it('runs statement-level BEFORE triggers after the session is set, request after request', async () => {
    await f.db.sql(`CREATE TABLE statement_log (session text);
      CREATE FUNCTION log_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO statement_log VALUES (current_setting('svc.user', true)); RETURN NULL; END $$;
      CREATE TRIGGER article_statement_log BEFORE UPDATE ON article FOR EACH STATEMENT EXECUTE FUNCTION log_statement();`);
    try {
      // Several requests, so that pooled connections past their first transaction (no BEGIN) run too.
      for (const rating of [1, 2, 3, 4, 5]) {
        const data = ok(await f.gql(`mutation { update_article(where: {id: {_eq: 3}}, _set: {rating: ${rating}}) { affected_rows } }`, undefined, USER));
        expect(data).to.deep.equal({ update_article: { affected_rows: 1 } });
      }
      const log = await f.rows('SELECT session FROM statement_log');
      expect(log.map((r) => JSON.parse(r['session'] as string))).to.deep.equal(Array(5).fill({ 'x-svc-role': 'user', 'x-svc-user-id': '2' }));
    } finally {
      await f.db.sql('DROP TRIGGER article_statement_log ON article; DROP FUNCTION log_statement(); DROP TABLE statement_log');
    }
  });

  it("reports a trigger's own error in a checked write as that error, not as the failed check", async () => {
    // The trigger raises the very error the check uses (a cast of the check's marker text): it
    // comes from user code, so it is the trigger's data-exception, and nothing is written.
    await f.db.sql(`CREATE FUNCTION cast_marker() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.title = 'cast' THEN PERFORM ('svc-permission-check-failed ' || NEW.title)::boolean; END IF; RETURN NEW; END $$;
      CREATE TRIGGER article_cast_marker BEFORE UPDATE ON article FOR EACH ROW EXECUTE FUNCTION cast_marker();`);
    try {
      const err = failure(await f.gql(`mutation { update_article(where: {id: {_eq: 3}}, _set: {title: "cast"}) { affected_rows } }`, undefined, USER));
      expect(err.code).to.equal('data-exception');
      expect(err.message).to.contain('invalid input syntax for type boolean');
      expect((await f.rows('SELECT title FROM article WHERE id = 3'))[0]!['title']).to.equal('On Computable Numbers');
      // The check's own failure on the same table is still the permission error.
      const check = failure(await f.gql(`mutation { update_article(where: {id: {_eq: 3}}, _set: {rating: 7}) { affected_rows } }`, undefined, USER));
      expect(check).to.include({ code: 'permission-error', message: 'check constraint of an insert/update permission has failed' });
    } finally {
      await f.db.sql('DROP TRIGGER article_cast_marker ON article; DROP FUNCTION cast_marker()');
    }
  });
});
