import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { SCHEMA_SQL, TRACK_BULK } from './fixture.js';

type Body = { data?: any; errors?: Array<{ message: string; extensions: { code: string; path: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The reference engine's aggregate predicates beyond count/bool_and/bool_or (`avg`, `max`, `min`,
 * `sum`, `stddev_samp`, `var_samp` over a float8 column, `corr`/`covar_samp` over two), the
 * `hide_aggregation_predicates` experimental feature, the `path` argument of json/jsonb columns,
 * and enum-table values under the graphql-default naming convention (tests-py
 * `naming_conventions/enum_value_convention.yaml`). Every answer is checked against plain SQL.
 */
describe('read API: aggregate predicates, jsonb paths, graphql-default enums (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  let hidden: Engine;
  const gql = async (query: string, e: Engine = engine): Promise<Body> => {
    const res = await graphql(e, query);
    expect(res.status).to.equal(200);
    return res.body as Body;
  };
  const ids = async (query: string) => {
    const body = await gql(query);
    expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
    return (body.data.author as Array<{ id: number }>).map((a) => a.id);
  };
  const sqlIds = async (where: string) => (await db.sql(`SELECT a.id FROM author a WHERE ${where} ORDER BY a.id`)).rows.map((r) => r.id as number);

  before(async () => {
    db = await createTestDatabase(
      'compat_aggpred',
      SCHEMA_SQL +
        `ALTER TABLE article ADD COLUMN weight float8, ADD COLUMN bonus double precision;
         UPDATE article SET weight = id * 1.5, bonus = coalesce(rating, 0) * 2 + (id % 3);`,
    );
    engine = await startTestEngine({ databaseUrl: db.url });
    const res = await metadata(engine, TRACK_BULK);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    hidden = await startTestEngine({ databaseUrl: db.url, experimentalFeatures: ['hide_aggregation_predicates'] });
  });
  after(async () => {
    await hidden?.close();
    await engine?.close();
    await db?.drop();
  });

  it('offers the reference set of aggregate predicates, the float8 ones only over float8 columns', async () => {
    const body = await gql(`{
      preds: __type(name: "article_aggregate_bool_exp") { inputFields { name } }
      avg: __type(name: "article_aggregate_bool_exp_avg") { inputFields { name type { kind name ofType { name } } } }
      cols: __type(name: "article_select_column_article_aggregate_bool_exp_avg_arguments_columns") { enumValues { name } }
      corr: __type(name: "article_aggregate_bool_exp_corr_arguments") { inputFields { name } }
    }`);
    expect(body.data.preds.inputFields.map((f: { name: string }) => f.name)).to.deep.equal([
      'avg', 'bool_and', 'bool_or', 'corr', 'count', 'covar_samp', 'max', 'min', 'stddev_samp', 'sum', 'var_samp',
    ]);
    const avg = Object.fromEntries(body.data.avg.inputFields.map((f: { name: string; type: unknown }) => [f.name, f.type]));
    expect(avg.predicate).to.deep.equal({ kind: 'NON_NULL', name: null, ofType: { name: 'float8_comparison_exp' } });
    expect(body.data.cols.enumValues.map((v: { name: string }) => v.name)).to.deep.equal(['bonus', 'weight']);
    expect(body.data.corr.inputFields.map((f: { name: string }) => f.name)).to.deep.equal(['X', 'Y']);

    const intColumn = await gql('{ author(where: {articles_aggregate: {max: {arguments: rating, predicate: {_gt: 3}}}}) { id } }');
    expect(intColumn.errors?.[0]?.extensions.code).to.equal('validation-failed');
  });

  it('filters by avg, sum, max, min, stddev_samp and var_samp as SQL does', async () => {
    const cases: Array<[string, string]> = [
      ['avg: {arguments: weight, predicate: {_gt: 5}}', '(SELECT avg(weight) FROM article WHERE author_id = a.id) > 5'],
      ['sum: {arguments: weight, filter: {is_published: {_eq: true}}, predicate: {_gte: 10}}', '(SELECT sum(weight) FROM article WHERE author_id = a.id AND is_published) >= 10'],
      ['max: {arguments: bonus, predicate: {_eq: 10}}', '(SELECT max(bonus) FROM article WHERE author_id = a.id) = 10'],
      ['min: {arguments: bonus, distinct: true, predicate: {_lt: 9}}', '(SELECT min(DISTINCT bonus) FROM article WHERE author_id = a.id) < 9'],
      ['stddev_samp: {arguments: weight, predicate: {_gt: 1}}', '(SELECT stddev_samp(weight) FROM article WHERE author_id = a.id) > 1'],
      ['var_samp: {arguments: bonus, predicate: {_lt: 3}}', '(SELECT var_samp(bonus) FROM article WHERE author_id = a.id) < 3'],
    ];
    for (const [pred, sql] of cases) {
      const expected = await sqlIds(sql);
      expect(expected.length, pred).to.be.greaterThan(0);
      expect(await ids(`{ author(where: {articles_aggregate: {${pred}}}, order_by: {id: asc}) { id } }`), pred).to.deep.equal(expected);
    }
  });

  it('filters by corr and covar_samp over the Y and X columns', async () => {
    const corr = await ids('{ author(where: {articles_aggregate: {corr: {arguments: {Y: bonus, X: weight}, predicate: {_gt: 0}}}}, order_by: {id: asc}) { id } }');
    expect(corr).to.deep.equal(await sqlIds('(SELECT corr(bonus, weight) FROM article WHERE author_id = a.id) > 0'));
    const covar = await ids('{ author(where: {articles_aggregate: {covar_samp: {arguments: {Y: weight, X: bonus}, predicate: {_lt: 0}}}}, order_by: {id: asc}) { id } }');
    expect(covar).to.deep.equal(await sqlIds('(SELECT covar_samp(weight, bonus) FROM article WHERE author_id = a.id) < 0'));
    expect(covar.length).to.be.greaterThan(0);
    const corrNeg = await ids('{ author(where: {articles_aggregate: {corr: {arguments: {Y: bonus, X: weight}, predicate: {_lt: 0}}}}, order_by: {id: asc}) { id } }');
    expect(corrNeg).to.deep.equal(await sqlIds('(SELECT corr(bonus, weight) FROM article WHERE author_id = a.id) < 0'));
    expect(corrNeg.length).to.be.greaterThan(0);
  });

  it('hides aggregate predicates with the hide_aggregation_predicates experimental feature', async () => {
    const body = await gql('{ author(where: {articles_aggregate: {count: {predicate: {_gt: 1}}}}) { id } }', hidden);
    expect(body.errors?.[0]).to.deep.equal({
      extensions: { path: '$.selectionSet.author.args.where.articles_aggregate', code: 'validation-failed' },
      message: "field 'articles_aggregate' not found in type: 'author_bool_exp'",
    });
    // The aggregate field itself and ordering by it stay.
    const other = await gql('{ author(order_by: {articles_aggregate: {count: desc}}, limit: 1) { articles_aggregate { aggregate { count } } } }', hidden);
    expect(other.errors).to.equal(undefined);
  });

  it('selects inside json/jsonb columns with path, as the reference parses it', async () => {
    const body = await gql(`{ author(where: {id: {_lte: 2}}, order_by: {id: asc}) {
      lang: meta(path: "lang") first: meta(path: "$.langs[0]") quoted: meta(path: "$[\\"langs\\"][1]") all: meta(path: "$") meta
    } }`);
    expect(body.errors).to.equal(undefined);
    const rows = (await db.sql(`SELECT meta #> '{lang}' AS lang, meta #> '{langs,0}' AS first, meta #> '{langs,1}' AS quoted, meta AS all, meta FROM author WHERE id <= 2 ORDER BY id`)).rows;
    expect(body.data.author).to.deep.equal(rows);
    const bad = await gql('{ author { meta(path: "$.a b") } }');
    expect(bad.errors).to.deep.equal([
      {
        extensions: { path: '$.selectionSet.author.selectionSet.meta.args.path', code: 'validation-failed' },
        message: 'parse json path error: $.a b. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character',
      },
    ]);
    const notJson = await gql('{ author { name(path: "x") } }');
    expect(notJson.errors?.[0]?.message).to.equal("'name' has no argument named 'path'");
  });

  describe('enum tables under graphql-default', () => {
    let e: Engine;
    before(async () => {
      await db.sql(`
        CREATE TABLE days_of_the_week (day_name text PRIMARY KEY);
        INSERT INTO days_of_the_week (day_name) VALUES ('Monday'), ('Tuesday'), ('Wednesday'), ('Thursday'), ('Friday'), ('Saturday'), ('Sunday');
        CREATE TABLE users (id serial PRIMARY KEY, favourite_day text NOT NULL REFERENCES days_of_the_week);
        INSERT INTO users (favourite_day) VALUES ('Sunday');
      `);
      e = engine;
      const res = await metadata(e, {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'days_of_the_week', is_enum: true } },
          { type: 'pg_track_table', args: { table: 'users' } },
          { type: 'pg_update_source', args: { name: 'default', customization: { naming_convention: 'graphql-default' } } },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('upper-cases the enum values and answers the columns with them, as the reference', async () => {
      const type = await gql('{ __type(name: "DaysOfTheWeekEnum") { enumValues { name } } }', e);
      expect(type.data.__type.enumValues.map((v: { name: string }) => v.name)).to.deep.equal([
        'FRIDAY', 'MONDAY', 'SATURDAY', 'SUNDAY', 'THURSDAY', 'TUESDAY', 'WEDNESDAY',
      ]);
      const inserted = await gql('mutation { insertUsers(objects: [{favouriteDay: SUNDAY}, {favouriteDay: FRIDAY}]) { returning { id favouriteDay } } }', e);
      expect(inserted.data.insertUsers.returning).to.deep.equal([{ id: 2, favouriteDay: 'SUNDAY' }, { id: 3, favouriteDay: 'FRIDAY' }]);
      const updated = await gql('mutation { updateUsers(where: {favouriteDay: {_eq: SUNDAY}}, _set: {favouriteDay: MONDAY}) { returning { id favouriteDay } } }', e);
      expect(updated.data.updateUsers.returning).to.deep.equal([{ id: 1, favouriteDay: 'MONDAY' }, { id: 2, favouriteDay: 'MONDAY' }]);
      const selected = await gql('{ users(orderBy: {id: ASC}) { id favouriteDay } }', e);
      expect(selected.data.users).to.deep.equal([{ id: 1, favouriteDay: 'MONDAY' }, { id: 2, favouriteDay: 'MONDAY' }, { id: 3, favouriteDay: 'FRIDAY' }]);
      // The database keeps its own spelling.
      expect((await db.sql('SELECT favourite_day FROM users ORDER BY id')).rows.map((r) => r.favourite_day)).to.deep.equal(['Monday', 'Monday', 'Friday']);
    });
  });
});
