import { expect } from 'chai';
import { as, dataOf, errorOf, ok, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Computed fields in selections, filters, ordering and permissions, against plain SQL. */
describe('computed fields: queries (integration)', function () {
  let f: FunctionsFixture;
  before(async () => {
    f = await startFunctionsFixture('cf_query');
    await ok(
      f.meta({
        type: 'bulk',
        args: [
          { type: 'pg_add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'full_name' } } },
          {
            type: 'pg_add_computed_field',
            args: { table: 'author', name: 'top_articles', definition: { function: 'top_articles', table_argument: 'author_row' } },
          },
          {
            type: 'pg_add_computed_field',
            args: {
              table: 'author',
              name: 'greeting',
              definition: { function: 'greeting', table_argument: 'who', session_argument: 'svc' },
              comment: 'says hello',
            },
          },
          {
            type: 'pg_create_select_permission',
            args: {
              table: 'author',
              role: 'user',
              permission: { columns: ['id', 'name'], filter: {}, computed_fields: ['full_name'] },
            },
          },
          {
            type: 'pg_create_select_permission',
            args: { table: 'article', role: 'user', permission: { columns: ['id', 'rating'], filter: { is_published: { _eq: true } } } },
          },
          { type: 'pg_create_select_permission', args: { table: 'author', role: 'plain', permission: { columns: ['id'], filter: {} } } },
        ],
      }),
    );
  });
  after(async () => f?.close());

  const rows = async (sql: string) => (await f.db.sql(sql)).rows;

  it('selects a scalar computed field, filters and orders by it', async () => {
    const data = dataOf(await f.gql('{ author(where: {full_name: {_ilike: "%example%"}}, order_by: {full_name: desc}) { id full_name } }'));
    const expected = await rows(`SELECT a.id, full_name(a) AS full_name FROM author a WHERE full_name(a) ILIKE '%example%' ORDER BY 2 DESC`);
    expect(data.author).to.deep.equal(expected);
    expect(expected).to.have.length(4);
  });

  it('nests a table computed field with its own args, where, order_by and limit', async () => {
    const data = dataOf(
      await f.gql(`{ author(where: {id: {_in: [2, 4]}}, order_by: {id: asc}) {
        id top_articles(args: {n: 3}, where: {rating: {_gte: 4}}, order_by: {id: desc}, limit: 1) { id rating }
        all: top_articles(args: {n: 10}) { id }
      } }`),
    );
    for (const a of data.author) {
      const top = await rows(`SELECT id, rating FROM top_articles((SELECT a FROM author a WHERE id = ${a.id}), 3) WHERE rating >= 4 ORDER BY id DESC LIMIT 1`);
      const all = await rows(`SELECT id FROM top_articles((SELECT a FROM author a WHERE id = ${a.id}), 10)`);
      expect(a.top_articles).to.deep.equal(top);
      expect(a.all).to.deep.equal(all);
    }
  });

  it('requires the args of a computed field whose function has arguments without defaults', async () => {
    const res = await f.gql('{ author { top_articles { id } } }');
    expect(errorOf(res).code).to.equal('validation-failed');
  });

  it('passes the session to a session argument', async () => {
    const data = dataOf(await f.gql('{ author(where: {id: {_eq: 1}}) { greeting } }'));
    expect(data).to.deep.equal({ author: [{ greeting: 'hello Ada Lovelace from admin' }] });
  });

  it('shows a role only the scalar computed fields its permission lists, and table ones over tables it may select', async () => {
    const data = dataOf(await f.gql('{ author(where: {id: {_eq: 2}}) { full_name top_articles(args: {n: 5}, order_by: {id: asc}) { id } } }', as('user')));
    // The target table's permission applies inside: article 5 is a draft.
    expect(data).to.deep.equal({ author: [{ full_name: 'Alan Turing <alan@example.com>', top_articles: [{ id: 3 }, { id: 4 }] }] });
    const unlisted = await f.gql('{ author { greeting } }', as('user'));
    expect(errorOf(unlisted).message).to.equal("field 'greeting' not found in type: 'author'");
    const plain = await f.gql('{ author { full_name } }', as('plain'));
    expect(errorOf(plain).message).to.equal("field 'full_name' not found in type: 'author'");
    const noTable = await f.gql('{ author { top_articles(args: {n: 1}) { id } } }', as('plain'));
    expect(errorOf(noTable).message).to.equal("field 'top_articles' not found in type: 'author'");
    const filter = await f.gql('{ author(where: {full_name: {_eq: "x"}}) { id } }', as('plain'));
    expect(errorOf(filter).code).to.equal('validation-failed');
  });

  it('describes computed fields: the comment, else the function comment, else a generated one', async () => {
    const data = dataOf(await f.gql('{ __type(name: "author") { fields { name description args { name type { name kind ofType { name } } } } } }'));
    const fields = Object.fromEntries(data.__type.fields.map((x: { name: string }) => [x.name, x]));
    expect(fields.greeting.description).to.equal('says hello');
    expect(fields.top_articles.description).to.equal('best articles first');
    expect(fields.full_name.description).to.equal('A computed field, executes function "full_name"');
    expect(fields.full_name.args).to.deep.equal([]);
    expect(fields.top_articles.args.map((a: { name: string }) => a.name)).to.deep.equal(['args', 'distinct_on', 'limit', 'offset', 'order_by', 'where']);
    expect(fields.top_articles.args[0].type).to.deep.equal({ name: null, kind: 'NON_NULL', ofType: { name: 'top_articles_author_args' } });
    const ob = dataOf(await f.gql('{ __type(name: "author_order_by") { inputFields { name } } }'));
    // Only scalar computed fields without client arguments order and filter.
    expect(ob.__type.inputFields.map((x: { name: string }) => x.name)).to.include.members(['full_name', 'greeting']).and.not.include('top_articles');
  });

  it('answers computed fields in the returning rows of a mutation', async () => {
    const data = dataOf(
      await f.gql(`mutation { insert_author_one(object: {name: "Niklaus Wirth", email: "nw@example.ch"}) { full_name top_articles(args: {n: 1}) { id } } }`),
    );
    expect(data).to.deep.equal({ insert_author_one: { full_name: 'Niklaus Wirth <nw@example.ch>', top_articles: [] } });
  });

  it('refuses a relationship named like a computed field', async () => {
    const res = await f.meta({
      type: 'pg_create_object_relationship',
      args: { table: 'author', name: 'full_name', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'already-exists', error: 'field with name "full_name" already exists in table "author"' });
  });
});
