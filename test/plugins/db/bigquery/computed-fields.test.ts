/**
 * The BigQuery kind's computed fields (`wh_add_computed_field` / `wh_drop_computed_field`): a
 * table-valued function whose arguments in `argument_mapping` take the row's columns (the others
 * are the field's `args`), returning rows of `return_table`; selected, filtered through and
 * ordered by, with the exact SQL checked, and every refusal with its error.
 */
import { expect } from 'chai';
import { graphql } from '../../../helpers/engine.js';
import { DATASET } from './fixture.js';
import { ADMIN, type Body, type Harness, SOURCE, startHarness, trackFixture } from './harness.js';
import { INT, list, rec, rootAnswer, STR } from './rows.js';

const table = (name: string) => ({ dataset: DATASET, name });
const fn = (name: string) => ({ dataset: DATASET, name });

describe('db/bigquery: computed fields (stand-in)', function () {
  this.timeout(60000);
  let h: Harness;
  const gql = async (query: string, variables?: Record<string, unknown>): Promise<Body> => (await graphql(h.engine, query, variables, ADMIN)).body as Body;
  const add = (name: string, definition: unknown, extra: Record<string, unknown> = {}) =>
    h.meta({ type: 'wh_add_computed_field', args: { source: SOURCE, table: table('author'), name, definition, ...extra } });

  before(async () => {
    h = await startHarness('bigquery_computed');
    await trackFixture(h);
  });
  after(async () => h?.close());

  it('adds a field over a table-valued function fed the row\'s columns, and selects it', async () => {
    const res = await add('writings', { function: fn('articles_of'), argument_mapping: { a_id: 'id' }, return_table: table('article') }, { comment: 'what they wrote' });
    expect(res.body).to.deep.equal({ message: 'success' });
    h.answer(() => rootAnswer(list(rec(INT, list(rec(STR)))), [[1, [['Alpha'], ['beta']]], [2, [['Gamma']]]]));
    const body = await gql('{ conf_author(order_by: {id: asc}, limit: 2) { id writings(order_by: {id: asc}) { title } } }');
    expect(body.data).to.deep.equal({ conf_author: [{ id: 1, writings: [{ title: 'Alpha' }, { title: 'beta' }] }, { id: 2, writings: [{ title: 'Gamma' }] }] });
    expect(h.bq.queries.at(-1)!.query).to.equal(
      'SELECT ARRAY(SELECT AS STRUCT `_t0`.`id` AS `f0`, ARRAY(SELECT AS STRUCT `_t1`.`title` AS `f0` FROM `conf`.`articles_of`(`_t0`.`id`) AS `_t1` ORDER BY `_t1`.`id` ASC NULLS LAST) AS `f1` ' +
        'FROM `conf`.`author` AS `_t0` ORDER BY `_t0`.`id` ASC NULLS LAST LIMIT 2) AS `root`',
    );
  });

  it('takes the arguments no column feeds from the field\'s args, as typed parameters', async () => {
    await h.ok({ type: 'wh_add_computed_field', args: { source: SOURCE, table: table('author'), name: 'popular', definition: { function: fn('articles_above'), argument_mapping: { a_id: 'id' }, return_table: table('article') } } });
    h.answer(() => rootAnswer(list(rec(list(rec(INT)))), [[[[2]]]]));
    const body = await gql('{ conf_author(where: {id: {_eq: 1}}) { popular(args: {min_views: 15}) { id } } }');
    expect(body.data).to.deep.equal({ conf_author: [{ popular: [{ id: 2 }] }] });
    const q = h.bq.queries.at(-1)!;
    expect(q.query).to.equal(
      'SELECT ARRAY(SELECT AS STRUCT ARRAY(SELECT AS STRUCT `_t1`.`id` AS `f0` FROM `conf`.`articles_above`(`_t0`.`id`, @p0) AS `_t1`) AS `f0` FROM `conf`.`author` AS `_t0` WHERE (`_t0`.`id` = @p1) LIMIT 1000) AS `root`',
    );
    expect(q.params).to.deep.equal({ p0: { type: 'INT64', value: '15' }, p1: { type: 'INT64', value: '1' } });
    // min_views has no column and no default: the field's `args` are required.
    expect((await gql('{ conf_author { popular { id } } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
  });

  it('filters through a field that takes no client arguments', async () => {
    h.answer(() => rootAnswer(list(rec(INT)), [[1]]));
    await gql('{ conf_author(where: {writings: {views: {_gt: 15}}}) { id } }');
    expect(h.bq.queries.at(-1)!.query).to.equal(
      'SELECT ARRAY(SELECT AS STRUCT `_t0`.`id` AS `f0` FROM `conf`.`author` AS `_t0` WHERE EXISTS (SELECT 1 FROM `conf`.`articles_of`(`_t0`.`id`) AS `_t1` WHERE (`_t1`.`views` > @p0)) LIMIT 1000) AS `root`',
    );
  });

  it('refuses definitions of the wrong form with parse-failed at the path, changing nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ table: table('author'), name: 'x', definition: { function: fn('articles_of'), argument_mapping: {} } }, '$.args'],
      [{ source: SOURCE, table: table('author'), name: 'x', definition: { function: fn('articles_of'), table_argument: 'a' } }, '$.args.definition.table_argument'],
      [{ source: SOURCE, table: table('author'), name: 'x', definition: { function: fn('articles_of') } }, '$.args.definition'],
      [{ source: SOURCE, table: table('author'), name: 'x', definition: { function: fn('articles_of'), argument_mapping: { a_id: 5 } } }, '$.args.definition.argument_mapping.a_id'],
      [{ source: SOURCE, table: table('author'), name: 'x', definition: { function: 5, argument_mapping: {} } }, '$.args.definition.function'],
    ];
    for (const [args, path] of cases) {
      const res = await h.meta({ type: 'wh_add_computed_field', args });
      expect(res.body, JSON.stringify(args)).to.deep.include({ code: 'parse-failed', path });
    }
  });

  it('refuses functions, arguments, columns and tables that do not fit, as inconsistent objects', async () => {
    const reason = async (definition: unknown): Promise<string> => {
      const res = await add('bad', definition);
      expect(res.status).to.equal(400);
      return JSON.stringify(res.body);
    };
    expect(await reason({ function: fn('nope'), argument_mapping: {}, return_table: table('article') })).to.include('no such function exists');
    expect(await reason({ function: fn('articles_of'), argument_mapping: { b_id: 'id' }, return_table: table('article') })).to.include('\\"b_id\\" is not an input argument');
    expect(await reason({ function: fn('articles_of'), argument_mapping: { a_id: 'nope' }, return_table: table('article') })).to.include('the column \\"nope\\" mapped to argument');
    expect(await reason({ function: fn('articles_of'), argument_mapping: { a_id: 'id' }, return_table: table('missing') })).to.include('is not tracked or not found');
    expect(await reason({ function: fn('articles_of'), argument_mapping: { a_id: 'id' } })).to.include('give \\"return_table\\"');
    expect(await reason({ function: fn('shout'), argument_mapping: { s: 'name' }, return_table: table('article') })).to.include('is not a table-valued function');
    // None of the refusals was kept: the name is free for a field that fits.
    expect((await add('bad', { function: fn('articles_of'), argument_mapping: { a_id: 'id' }, return_table: table('article') })).body).to.deep.equal({ message: 'success' });
    await h.ok({ type: 'wh_drop_computed_field', args: { source: SOURCE, table: table('author'), name: 'bad' } });
  });

  it('exports the definition in the reference form, replaces it, and drops the field', async () => {
    const exported = (await h.meta({ type: 'export_metadata', args: {} })).body;
    const source = (exported['sources'] as Array<{ name: string; tables: Array<{ table: { name: string }; computed_fields?: unknown[] }> }>).find((s) => s.name === SOURCE)!;
    const author = source.tables.find((t) => t.table.name === 'author')!;
    expect(author.computed_fields).to.deep.include({
      name: 'writings',
      definition: { function: fn('articles_of'), argument_mapping: { a_id: 'id' }, return_table: table('article') },
      comment: 'what they wrote',
    });
    await h.ok({ type: 'replace_metadata', args: exported });
    expect((await h.meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
    await h.ok({ type: 'wh_drop_computed_field', args: { source: SOURCE, table: table('author'), name: 'popular' } });
    const missing = await h.meta({ type: 'wh_drop_computed_field', args: { source: SOURCE, table: table('author'), name: 'popular' } });
    expect(missing.body).to.deep.include({ code: 'not-exists' });
    const noSource = await h.meta({ type: 'wh_drop_computed_field', args: { table: table('author'), name: 'writings' } });
    expect(noSource.body).to.deep.include({ code: 'parse-failed' });
    expect((await gql('{ conf_author { popular(args: {min_views: 1}) { id } } }')).errors![0]!.extensions!.code).to.equal('validation-failed');
  });
});
