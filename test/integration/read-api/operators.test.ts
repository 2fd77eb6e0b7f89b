import { expect } from 'chai';
import { graphql } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

/** [GraphQL where on author, the same condition in SQL]; each answer is compared with psql's. */
const AUTHOR_CASES: Array<[string, string]> = [
  ['{id: {_eq: 2}}', 'id = 2'],
  ['{id: {_neq: 2}}', 'id <> 2'],
  ['{id: {_gt: 2}}', 'id > 2'],
  ['{id: {_lt: 2}}', 'id < 2'],
  ['{id: {_gte: 2}}', 'id >= 2'],
  ['{id: {_lte: 2}}', 'id <= 2'],
  ['{id: {_in: [1, 3, 5]}}', 'id IN (1, 3, 5)'],
  ['{id: {_nin: [1, 3, 5]}}', 'id NOT IN (1, 3, 5)'],
  ['{id: {_in: []}}', 'false'],
  ['{email: {_is_null: true}}', 'email IS NULL'],
  ['{email: {_is_null: false}}', 'email IS NOT NULL'],
  ['{name: {_like: "A%"}}', "name LIKE 'A%'"],
  ['{name: {_nlike: "A%"}}', "name NOT LIKE 'A%'"],
  ['{name: {_ilike: "%ing"}}', "name ILIKE '%ing'"],
  ['{name: {_nilike: "%ing"}}', "name NOT ILIKE '%ing'"],
  ['{name: {_similar: "(Ada|Alan)%"}}', "name SIMILAR TO '(Ada|Alan)%'"],
  ['{name: {_nsimilar: "(Ada|Alan)%"}}', "name NOT SIMILAR TO '(Ada|Alan)%'"],
  ['{name: {_regex: "^[AG]"}}', "name ~ '^[AG]'"],
  ['{name: {_nregex: "^[AG]"}}', "name !~ '^[AG]'"],
  ['{name: {_iregex: "^[ag]"}}', "name ~* '^[ag]'"],
  ['{name: {_niregex: "^[ag]"}}', "name !~* '^[ag]'"],
  ['{born: {_lt: "1900-01-01"}}', "born < '1900-01-01'"],
  ['{meta: {_contains: {lang: "en", level: 2}}}', `meta @> '{"lang": "en", "level": 2}'`],
  ['{meta: {_contained_in: {lang: "en", level: 1, x: 1}}}', `meta <@ '{"lang": "en", "level": 1, "x": 1}'`],
  ['{meta: {_has_key: "langs"}}', "meta ? 'langs'"],
  ['{meta: {_has_keys_any: ["langs", "level"]}}', "meta ?| array['langs', 'level']"],
  ['{meta: {_has_keys_all: ["lang", "level"]}}', "meta ?& array['lang', 'level']"],
  ['{meta: {_cast: {String: {_ilike: "%\\"level\\": 3%"}}}}', `meta::text ILIKE '%"level": 3%'`],
  ['{tags: {_contains: ["math"]}}', "tags @> array['math']"],
  ['{tags: {_contained_in: ["math", "poetry", "navy"]}}', "tags <@ array['math', 'poetry', 'navy']"],
  ['{tags: {_eq: ["math"]}}', "tags = array['math']"],
  ['{_and: [{rating: {_gte: 4}}, {email: {_is_null: false}}]}', 'rating >= 4 AND email IS NOT NULL'],
  ['{_or: [{rating: {_eq: 3}}, {born: {_is_null: true}}]}', 'rating = 3 OR born IS NULL'],
  ['{_not: {rating: {_eq: 5}}}', 'NOT (rating = 5)'],
  ['{_and: []}', 'true'],
  ['{_or: []}', 'false'],
  ['{}', 'true'],
  ['{rating: {_gt: 3, _lt: 5}}', 'rating > 3 AND rating < 5'],
  ['{articles: {}}', 'EXISTS (SELECT 1 FROM article WHERE article.author_id = author.id)'],
  ['{articles_aggregate: {count: {predicate: {_gt: 2}}}}', '(SELECT count(*) FROM article WHERE article.author_id = author.id) > 2'],
  [
    '{articles_aggregate: {count: {predicate: {_eq: 1}, filter: {rating: {_eq: 5}}}}}',
    '(SELECT count(*) FROM article WHERE article.author_id = author.id AND article.rating = 5) = 1',
  ],
];

describe('read API: every comparison operator (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('ops');
  });
  after(async () => f?.close());

  for (const [where, sql] of AUTHOR_CASES) {
    it(`author(where: ${where})  ≡  WHERE ${sql}`, async () => {
      const data = dataOf(await graphql(f.engine, `{ author(where: ${where}, order_by: {id: asc}) { id } }`));
      const expected = (await f.db.sql(`SELECT id FROM author WHERE ${sql} ORDER BY id`)).rows;
      expect(data.author).to.deep.equal(expected);
    });
  }

  it('compares bigint and numeric columns, with values as strings or numbers', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ article(where: {views: {_gt: "6000"}, score: {_gte: 95.5}}, order_by: {id: asc}) { id } }`),
    );
    expect(data.article).to.deep.equal((await f.db.sql('SELECT id FROM article WHERE views > 6000 AND score >= 95.5 ORDER BY id')).rows);
  });

  it('compares timestamps', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ article(where: {published_at: {_gte: "1950-01-01T00:00:00Z"}}, order_by: {id: asc}) { id } }`),
    );
    expect(data.article).to.deep.equal((await f.db.sql("SELECT id FROM article WHERE published_at >= '1950-01-01T00:00:00Z' ORDER BY id")).rows);
  });

  it('refuses a null comparison value', async () => {
    const res = await graphql(f.engine, `{ author(where: {id: {_eq: null}}) { id } }`);
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('treats hostile strings as values, never as SQL', async () => {
    const hostile = `x'); DROP TABLE author; --`;
    const res = await graphql(f.engine, `query($n: String!) { author(where: {name: {_eq: $n}}) { id } }`, { n: hostile });
    expect(dataOf(res).author).to.deep.equal([]);
    const lit = await graphql(f.engine, `{ author(where: {name: {_like: ${JSON.stringify(hostile + '\\$1')}}}) { id } }`);
    expect(dataOf(lit).author).to.deep.equal([]);
    const { rows } = await f.db.sql('SELECT count(*)::int AS n FROM author');
    expect(rows[0].n).to.equal(5);
  });
});
