import { expect } from 'chai';
import { graphql } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

describe('read API: --stringify-numeric-types (integration)', function () {
  let plain: ReadApiFixture;
  let stringified: ReadApiFixture;
  before(async () => {
    plain = await startReadApiFixture('num_plain');
    stringified = await startReadApiFixture('num_str', { stringifyNumericTypes: true });
  });
  after(async () => {
    await plain?.close();
    await stringified?.close();
  });

  const query = '{ article_by_pk(id: 1) { id views score } article_aggregate { aggregate { sum { views } avg { rating } } } }';

  it('returns bigint and numeric as JSON numbers by default, as PostgreSQL renders them', async () => {
    const res = await fetch(plain.engine.url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const text = await res.text();
    // The exact digits survive in the response text, which the server never re-encodes.
    expect(text).to.match(/"views"\s*:\s*9007199254740993/);
    expect(text).to.match(/"score"\s*:\s*99\.50/);
  });

  it('returns them as strings when asked to', async () => {
    const data = dataOf(await graphql(stringified.engine, query));
    expect(data.article_by_pk).to.deep.equal({ id: 1, views: '9007199254740993', score: '99.50' });
    expect(data.article_aggregate.aggregate.sum.views).to.be.a('string');
  });
});
