/** BigQuery's REST rows → response JSON: positions to keys, constants, and how each type is written. */
import { expect } from 'chai';
import { resultJson, timestampText } from '../../../../plugins/db/bigquery/results.js';
import type { Shape } from '../../../../plugins/db/bigquery/sql/shape.js';
import { BOOL, FLOAT, INT, list, rec, rootAnswer, STR, TS, type T } from './rows.js';

const scalar: Shape = { kind: 'scalar' };

function write(t: T, value: unknown, shape: Shape, stringify = false): unknown {
  const r = rootAnswer(t, value);
  return JSON.parse(resultJson({ ...r, statistics: {} }, shape, stringify));
}

describe('db/bigquery: results', () => {
  it('maps STRUCT positions to response keys and adds constants the statement never computed', () => {
    const shape: Shape = {
      kind: 'object',
      entries: [
        { key: 'ID', field: 0, shape: scalar },
        { key: '__typename', constant: 'conf_article' },
        { key: 'id', field: 1, shape: scalar },
        { key: 'author', field: 2, shape: { kind: 'object', entries: [{ key: 'name', field: 0, shape: scalar }] } },
      ],
    };
    expect(write(list(rec(INT, INT, rec(STR))), [[1, 1, ['Ann']], [2, 2, null]], shape)).to.deep.equal([
      { ID: 1, __typename: 'conf_article', id: 1, author: { name: 'Ann' } },
      { ID: 2, __typename: 'conf_article', id: 2, author: null },
    ]);
    expect(write(list(rec(INT)), [], shape)).to.deep.equal([]);
    expect(write(rec(INT), null, shape)).to.equal(null);
  });

  it('writes numbers as JSON numbers with every digit, or as strings when numeric types are stringified', () => {
    const r = rootAnswer(rec(INT, FLOAT, { type: 'NUMERIC' }, FLOAT), ['9007199254740993', '7.5', '123456789012345678901234.5', 'NaN']);
    const shape: Shape = { kind: 'object', entries: ['a', 'b', 'c', 'd'].map((key, field) => ({ key, field, shape: scalar })) };
    expect(resultJson({ ...r, statistics: {} }, shape, false)).to.equal('{"a":9007199254740993,"b":7.5,"c":123456789012345678901234.5,"d":"NaN"}');
    expect(resultJson({ ...r, statistics: {} }, shape, true)).to.equal('{"a":"9007199254740993","b":"7.5","c":"123456789012345678901234.5","d":"NaN"}');
  });

  it('writes booleans, timestamps, dates, bytes and JSON documents', () => {
    const t = rec(BOOL, TS, { type: 'DATE' }, { type: 'BYTES' }, { type: 'JSON' }, STR);
    const shape: Shape = { kind: 'object', entries: ['b', 't', 'd', 'y', 'j', 's'].map((key, field) => ({ key, field, shape: scalar })) };
    expect(write(t, ['false', '1700000000123456', '2024-02-29', 'AAE=', '{"a":[1,2]}', 'say "hi"'], shape)).to.deep.equal({
      b: false,
      t: '2023-11-14T22:13:20.123456+00:00',
      d: '2024-02-29',
      y: 'AAE=',
      j: { a: [1, 2] },
      s: 'say "hi"',
    });
    expect(timestampText('1.7E9')).to.equal('2023-11-14T22:13:20+00:00');
    expect(timestampText('-1')).to.equal('1969-12-31T23:59:59.999999+00:00');
  });

  it('writes an aggregate over no joined row with counts 0 and other values null', () => {
    const shape: Shape = {
      kind: 'object',
      entries: [
        {
          key: 'aggregate',
          field: 0,
          shape: {
            kind: 'object',
            aggregate: true,
            entries: [
              { key: 'count', field: 0, shape: { kind: 'scalar', count: true } },
              { key: 'max', field: 1, shape: { kind: 'object', entries: [{ key: 'views', field: 0, shape: scalar }, { key: '__typename', constant: 'x_max_fields' }] } },
            ],
          },
        },
      ],
    };
    expect(write(list(rec(rec(INT, rec(INT)))), [[null], [[2, [20]]]], shape)).to.deep.equal([
      { aggregate: { count: 0, max: { views: null, __typename: 'x_max_fields' } } },
      { aggregate: { count: 2, max: { views: 20, __typename: 'x_max_fields' } } },
    ]);
  });

  it('refuses an answer that does not have the statement\'s form', () => {
    const shape: Shape = { kind: 'object', entries: [{ key: 'a', field: 0, shape: scalar }] };
    expect(() => write(rec(INT), ['x'], shape)).to.throw('unexpected form');
    expect(() => write(INT, '1', shape)).to.not.throw();
    expect(() => write(rec(), [], shape)).to.throw('unexpected form');
  });
});
