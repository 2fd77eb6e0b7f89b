import { expect } from 'chai';
import { failure, ok, startMutationFixture, type MutationFixture } from './fixture.js';

describe('mutations: inserts (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('mut_insert');
  });
  after(async () => f?.close());

  it('inserts several rows and answers affected_rows, returning and __typename', async () => {
    const data = ok(
      await f.gql(`mutation {
        insert_author(objects: [{name: "Ann", email: "ann@example.com", tags: ["a", "b"]}, {name: "Bob", rating: 2}]) {
          __typename affected_rows returning { id name email tags rating }
        } }`),
    );
    expect(data.insert_author.__typename).to.equal('author_mutation_response');
    expect(data.insert_author.affected_rows).to.equal(2);
    const ids = data.insert_author.returning.map((r: { id: number }) => r.id);
    const rows = await f.rows('SELECT id, name, email, tags, rating FROM author WHERE id = ANY($1) ORDER BY id', [ids]);
    expect(data.insert_author.returning).to.deep.equal(rows);
    expect(rows.map((r) => r['name'])).to.deep.equal(['Ann', 'Bob']);
  });

  it('inserts one row with insert_<t>_one and takes values from variables', async () => {
    const data = ok(
      await f.gql(
        `mutation ($name: String!, $meta: jsonb) { insert_author_one(object: {name: $name, meta: $meta}) { id name meta } }`,
        { name: 'Vera', meta: { lang: 'de', n: [1, 2] } },
      ),
    );
    expect(data.insert_author_one).to.include({ name: 'Vera' });
    expect(data.insert_author_one.meta).to.deep.equal({ lang: 'de', n: [1, 2] });
    const [row] = await f.rows('SELECT meta FROM author WHERE id = $1', [data.insert_author_one.id]);
    expect(row!['meta']).to.deep.equal({ lang: 'de', n: [1, 2] });
  });

  it('takes a whole objects list from a variable', async () => {
    const q = `mutation ($rows: [comment_insert_input!]!) { insert_comment(objects: $rows) { affected_rows returning { body article_id } } }`;
    const data = ok(await f.gql(q, { rows: [{ article_id: 1, body: 'v1' }, { article_id: 2, body: 'v2' }] }));
    expect(data.insert_comment).to.deep.equal({
      affected_rows: 2,
      returning: [{ body: 'v1', article_id: 1 }, { body: 'v2', article_id: 2 }],
    });
    // Same text, other values: the cached plan must not answer with the first request's rows.
    const again = ok(await f.gql(q, { rows: [{ article_id: 3, body: 'v3' }] }));
    expect(again.insert_comment).to.deep.equal({ affected_rows: 1, returning: [{ body: 'v3', article_id: 3 }] });
  });

  it('answers an empty insert without touching the database', async () => {
    const data = ok(await f.gql(`mutation { insert_author(objects: []) { affected_rows returning { id } t: __typename } }`));
    expect(data.insert_author).to.deep.equal({ affected_rows: 0, returning: [], t: 'author_mutation_response' });
  });

  it('inserts three levels deep: object relationship first, array relationships after, FKs filled in', async () => {
    const data = ok(
      await f.gql(`mutation {
        insert_comment_one(object: {
          body: "deep",
          article: {data: {title: "Deep article", author: {data: {name: "Deep author"}}}}
        }) { body article { title author { name } } }
        insert_author(objects: [{
          name: "Tree",
          articles: {data: [
            {title: "T1", comments: {data: [{body: "T1c1"}, {body: "T1c2"}]}},
            {title: "T2"}
          ]}
        }]) {
          affected_rows
          returning { name articles(order_by: {title: asc}) { title comments(order_by: {body: asc}) { body } } }
        } }`),
    );
    expect(data.insert_comment_one).to.deep.equal({
      body: 'deep',
      article: { title: 'Deep article', author: { name: 'Deep author' } },
    });
    expect(data.insert_author.affected_rows).to.equal(5);
    expect(data.insert_author.returning).to.deep.equal([
      {
        name: 'Tree',
        articles: [
          { title: 'T1', comments: [{ body: 'T1c1' }, { body: 'T1c2' }] },
          { title: 'T2', comments: [] },
        ],
      },
    ]);
    const [tree] = await f.rows(`SELECT count(*)::int AS n FROM comment c JOIN article a ON a.id = c.article_id JOIN author w ON w.id = a.author_id WHERE w.name = 'Tree'`);
    expect(tree!['n']).to.equal(2);
  });

  it('upserts inside a nested insert and returns the upserted tree', async () => {
    // Ada (id 1, ada@example.com) exists: the nested author upsert updates her instead of inserting.
    const data = ok(
      await f.gql(`mutation {
        insert_article(objects: [{
          title: "Upserted",
          author: {data: {email: "ada@example.com", name: "Ada L."}, on_conflict: {constraint: author_email_key, update_columns: [name]}},
          comments: {data: [{body: "u1", commenter: {data: {email: "alan@example.com", name: "Alan T."}, on_conflict: {constraint: author_email_key, update_columns: [name]}}}]}
        }]) {
          affected_rows
          returning { title author { id name } comments { body commenter { id name } } }
        } }`),
    );
    expect(data.insert_article.affected_rows).to.equal(4);
    expect(data.insert_article.returning).to.deep.equal([
      { title: 'Upserted', author: { id: 1, name: 'Ada L.' }, comments: [{ body: 'u1', commenter: { id: 2, name: 'Alan T.' } }] },
    ]);
    const [n] = await f.rows(`SELECT count(*)::int AS n FROM author WHERE email IN ('ada@example.com', 'alan@example.com')`);
    expect(n!['n']).to.equal(2);
  });

  it('upserts: update_columns, where, and DO NOTHING', async () => {
    const updated = ok(
      await f.gql(`mutation {
        insert_author(objects: [{id: 3, name: "Grace B. Hopper"}], on_conflict: {constraint: author_pkey, update_columns: [name]}) {
          affected_rows returning { id name }
        } }`),
    );
    expect(updated.insert_author).to.deep.equal({ affected_rows: 1, returning: [{ id: 3, name: 'Grace B. Hopper' }] });
    const filtered = ok(
      await f.gql(`mutation {
        insert_author(objects: [{id: 3, name: "Nope"}], on_conflict: {constraint: author_pkey, update_columns: [name], where: {rating: {_eq: 0}}}) {
          affected_rows
        } }`),
    );
    expect(filtered.insert_author.affected_rows).to.equal(0);
    const nothing = ok(
      await f.gql(`mutation { insert_author_one(object: {id: 3, name: "Nope"}, on_conflict: {constraint: author_pkey, update_columns: []}) { id } }`),
    );
    expect(nothing.insert_author_one).to.equal(null);
    expect((await f.rows('SELECT name FROM author WHERE id = 3'))[0]!['name']).to.equal('Grace B. Hopper');
  });

  it('refuses an object relationship that inserts no row, and determined columns', async () => {
    const zero = failure(
      await f.gql(`mutation {
        insert_article_one(object: {title: "x", author: {data: {id: 1, name: "A"}, on_conflict: {constraint: author_pkey, update_columns: []}}}) { id }
      }`),
    );
    expect(zero.code).to.equal('not-supported');
    expect(zero.message).to.equal('cannot proceed to insert object relation "author" since insert to table "author" affects zero rows');
    expect(zero.path).to.equal('$.selectionSet.insert_article_one.args.object.author');

    const fk = failure(await f.gql(`mutation { insert_article_one(object: {title: "x", author_id: 1, author: {data: {name: "A"}}}) { id } }`));
    expect(fk.code).to.equal('validation-failed');
    expect(fk.message).to.equal('cannot insert object relationship "author" as "author_id" column values are already determined');

    const child = failure(
      await f.gql(`mutation { insert_author_one(object: {name: "P", articles: {data: [{title: "c", author_id: 2}]}}) { id } }`),
    );
    expect(child.code).to.equal('validation-failed');
    expect(child.message).to.equal('cannot insert "author_id" columns as their values are already being determined by parent insert');
    expect((await f.rows(`SELECT count(*)::int AS n FROM author WHERE name IN ('A', 'P')`))[0]!['n']).to.equal(0);
  });

  it('reports database errors of inserts at the objects argument', async () => {
    const err = failure(await f.gql(`mutation { insert_author(objects: [{name: "dup", email: "ewd@example.nl"}]) { affected_rows } }`));
    expect(err.code).to.equal('constraint-violation');
    expect(err.path).to.equal('$.selectionSet.insert_author.args.objects');
    const nested = failure(
      await f.gql(`mutation { insert_author_one(object: {name: "N", articles: {data: [{title: null}]}}) { id } }`),
    );
    expect(nested.code).to.equal('constraint-violation');
    expect(nested.message).to.match(/^Not-NULL violation\. /);
    expect(nested.path).to.equal('$.selectionSet.insert_author_one.args.object.articles.data');
    expect((await f.rows(`SELECT count(*)::int AS n FROM author WHERE name = 'N'`))[0]!['n']).to.equal(0);
  });
});
