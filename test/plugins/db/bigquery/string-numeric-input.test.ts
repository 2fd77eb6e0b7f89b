/**
 * The `wh_string_numeric_input` experimental feature: numeric columns of BigQuery sources take
 * numbers or strings holding them (scalars `wh_int`, `wh_float`, `wh_decimal`), sent as typed
 * parameters; text that is no number is refused before BigQuery is asked. Without the feature
 * the columns are `Int`/`Float`/`Decimal` and a string is a validation error, as in the reference.
 */
import { expect } from 'chai';
import { graphql } from '../../../helpers/engine.js';
import { ADMIN, type Body, type Harness, startHarness, trackFixture } from './harness.js';
import { INT, list, rec, rootAnswer } from './rows.js';

async function ask(h: Harness, query: string, variables?: Record<string, unknown>): Promise<Body> {
  return (await graphql(h.engine, query, variables, ADMIN)).body as Body;
}

describe('db/bigquery: wh_string_numeric_input (stand-in)', function () {
  this.timeout(60000);

  describe('with the feature', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness('bigquery_numeric_on', { experimentalFeatures: ['wh_string_numeric_input'] });
      await trackFixture(h);
      h.answer(() => rootAnswer(list(rec(INT)), [[1]]));
    });
    after(async () => h?.close());

    it('names the numeric scalars wh_int, wh_float, wh_decimal', async () => {
      const body = await ask(h, '{ __type(name: "conf_article") { fields { name type { name ofType { name } } } } }');
      const fields = (body.data!['__type'] as { fields: Array<{ name: string; type: { name: string | null; ofType: { name: string } | null } }> }).fields;
      const typeOf = (n: string) => { const f = fields.find((x) => x.name === n)!; return f.type.name ?? f.type.ofType!.name; };
      expect(typeOf('id')).to.equal('wh_int');
      expect(typeOf('views')).to.equal('wh_int');
      expect(typeOf('title')).to.equal('String');
    });

    it('takes numbers as strings, in literals and variables, and sends them as INT64 parameters', async () => {
      expect((await ask(h, '{ conf_article(where: {views: {_eq: "10"}}) { id } }')).data).to.deep.equal({ conf_article: [{ id: 1 }] });
      expect(h.bq.queries.at(-1)!.params).to.deep.equal({ p0: { type: 'INT64', value: '10' } });
      expect((await ask(h, 'query ($v: wh_int) { conf_article(where: {views: {_gt: $v}}) { id } }', { v: '5' })).data).to.deep.equal({ conf_article: [{ id: 1 }] });
      expect(h.bq.queries.at(-1)!.params).to.deep.equal({ p0: { type: 'INT64', value: '5' } });
      expect((await ask(h, '{ conf_article(where: {id: {_in: ["1", 3]}}) { id } }')).data).to.deep.equal({ conf_article: [{ id: 1 }] });
      expect(h.bq.queries.at(-1)!.params).to.deep.equal({ p0: { type: 'ARRAY<INT64>', value: ['1', '3'] } });
    });

    it('refuses text that is no number before asking BigQuery', async () => {
      const before = h.bq.queries.length;
      for (const bad of ['"ten"', '"1.5"', '"1; DROP TABLE x"']) {
        const body = await ask(h, `{ conf_article(where: {views: {_eq: ${bad}}}) { id } }`);
        expect(body.errors![0]!.extensions!.code, bad).to.equal('validation-failed');
      }
      expect(h.bq.queries.length).to.equal(before);
    });
  });

  describe('without the feature', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness('bigquery_numeric_off');
      await trackFixture(h);
    });
    after(async () => h?.close());

    it('keeps Int and refuses a string for it', async () => {
      const body = await ask(h, '{ conf_article(where: {views: {_eq: "10"}}) { id } }');
      expect(body.errors![0]!.extensions!.code).to.equal('validation-failed');
    });
  });
});
