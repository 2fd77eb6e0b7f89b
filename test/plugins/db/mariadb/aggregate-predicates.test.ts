/**
 * Aggregate predicates on the mariadb kind, from its scalar facts: `count`, `bool_and`/`bool_or`
 * over BOOLEAN columns and the floating-point functions over DOUBLE columns, answering what the
 * PostgreSQL kind answers over the same rows (float8 and bool there); `corr` and `covar_samp`,
 * which MariaDB cannot run, are not offered.
 */
import { expect } from 'chai';
import { startTwin, type Twin } from './twin.js';

const AUTHORS = `(1, 'ann'), (2, 'bo'), (3, 'cy'), (4, 'di')`;
const BOOKS = `(1, 1, 4.5, true), (2, 1, 2.0, false), (3, 2, 3.25, true), (4, 3, NULL, true), (5, 3, 1.5, true), (6, 3, 1.5, false)`;

describe('db/mariadb aggregate predicates (integration)', function () {
  this.timeout(60_000);
  let twin: Twin;
  const ids = async (where: string): Promise<number[]> => {
    const text = await twin.same(`{ author(where: ${where}, order_by: {id: asc}) { id } }`);
    return (JSON.parse(text) as { data: { author: Array<{ id: number }> } }).data.author.map((r) => r.id);
  };

  before(async () => {
    twin = await startTwin({
      prefix: 'aggpred',
      pgSql: `CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
        CREATE TABLE book (id int PRIMARY KEY, author_id int NOT NULL, score float8, good boolean NOT NULL);
        INSERT INTO author VALUES ${AUTHORS}; INSERT INTO book VALUES ${BOOKS};`,
      mariaSql: (db) => [
        `CREATE TABLE ${db}.author (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)`,
        `CREATE TABLE ${db}.book (id INT PRIMARY KEY, author_id INT NOT NULL, score DOUBLE NULL, good BOOLEAN NOT NULL)`,
        `INSERT INTO ${db}.author VALUES ${AUTHORS}`,
        `INSERT INTO ${db}.book VALUES ${BOOKS}`,
      ],
      tables: ['author', 'book'],
      arrays: [['author', 'books', 'book', 'author_id']],
    });
  });
  after(async () => {
    await twin?.close();
  });

  it('offers the predicates MariaDB can run, typed from its scalar facts', async () => {
    const { pg, maria } = await twin.both('{ __type(name: "book_aggregate_bool_exp") { inputFields { name } } }');
    const fields = (text: string) => (JSON.parse(text) as { data: { __type: { inputFields: Array<{ name: string }> } } }).data.__type.inputFields.map((f) => f.name);
    expect(fields(pg)).to.deep.equal(['avg', 'bool_and', 'bool_or', 'corr', 'count', 'covar_samp', 'max', 'min', 'stddev_samp', 'sum', 'var_samp']);
    expect(fields(maria)).to.deep.equal(['avg', 'bool_and', 'bool_or', 'count', 'max', 'min', 'stddev_samp', 'sum', 'var_samp']);
    // The comparison takes MariaDB's DOUBLE scalar (Float), where PostgreSQL's is float8.
    const predicate = await twin.both('{ __type(name: "book_aggregate_bool_exp_avg") { inputFields { name type { ofType { name } } } } }');
    expect(predicate.maria).to.include('"name":"predicate","type":{"ofType":{"name":"Float_comparison_exp"}}');
    expect(predicate.pg).to.include('"name":"predicate","type":{"ofType":{"name":"float8_comparison_exp"}}');
  });

  it('answers count, bool_and and bool_or as PostgreSQL does', async () => {
    expect(await ids('{books_aggregate: {count: {predicate: {_gte: 2}}}}')).to.deep.equal([1, 3]);
    expect(await ids('{books_aggregate: {count: {predicate: {_eq: 0}}}}')).to.deep.equal([4]);
    expect(await ids('{books_aggregate: {count: {arguments: [score], distinct: true, predicate: {_eq: 1}}}}')).to.deep.equal([2, 3]);
    expect(await ids('{books_aggregate: {count: {filter: {good: {_eq: true}}, predicate: {_gt: 1}}}}')).to.deep.equal([3]);
    expect(await ids('{books_aggregate: {bool_and: {arguments: good, predicate: {_eq: true}}}}')).to.deep.equal([2]);
    expect(await ids('{books_aggregate: {bool_or: {arguments: good, predicate: {_eq: false}}}}')).to.deep.equal([]);
    expect(await ids('{books_aggregate: {bool_or: {arguments: good, filter: {score: {_lt: 2}}, predicate: {_eq: true}}}}')).to.deep.equal([3]);
  });

  it('answers the floating-point predicates as PostgreSQL does', async () => {
    expect(await ids('{books_aggregate: {sum: {arguments: score, predicate: {_gt: 3.1}}}}')).to.deep.equal([1, 2]);
    expect(await ids('{books_aggregate: {avg: {arguments: score, predicate: {_lt: 2}}}}')).to.deep.equal([3]);
    expect(await ids('{books_aggregate: {max: {arguments: score, predicate: {_eq: 4.5}}}}')).to.deep.equal([1]);
    expect(await ids('{books_aggregate: {min: {arguments: score, filter: {good: {_eq: true}}, predicate: {_gte: 1.5}}}}')).to.deep.equal([1, 2, 3]);
    expect(await ids('{books_aggregate: {sum: {arguments: score, distinct: true, predicate: {_eq: 1.5}}}}')).to.deep.equal([3]);
    expect(await ids('{books_aggregate: {stddev_samp: {arguments: score, predicate: {_gt: 1}}}}')).to.deep.equal([1]);
    expect(await ids('{books_aggregate: {var_samp: {arguments: score, predicate: {_eq: 0}}}}')).to.deep.equal([3]);
  });

  it('refuses corr on MariaDB with a validation error, as for any unknown field', async () => {
    const { maria } = await twin.both('{ author(where: {books_aggregate: {corr: {arguments: {X: score, Y: score}, predicate: {_gt: 0}}}}) { id } }');
    expect(maria).to.include('"code":"validation-failed"');
  });
});
