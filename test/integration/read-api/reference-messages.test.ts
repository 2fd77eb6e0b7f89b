import { expect } from 'chai';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { graphql } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from './fixture.js';

/**
 * The HTTP details and error messages clients of the reference engine match on: `/v1/graphql`
 * gzips every answer when the client lists `gzip` in Accept-Encoding, and validation, variable
 * and constraint errors carry the reference's messages and paths (its schema parsers' texts).
 */
describe('read API: reference compression and messages (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('compat_ref_msgs');
  });
  after(async () => f?.close());

  const raw = (acceptEncoding: string | undefined) =>
    new Promise<{ encoding: string | undefined; vary: string | undefined; text: string }>((resolve, reject) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
      const req = request(f.engine.url + '/v1/graphql', { method: 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          resolve({ encoding, vary: res.headers['vary'] as string | undefined, text: (encoding === 'gzip' ? gunzipSync(body) : body).toString() });
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query: '{ author_by_pk(id: 1) { id } }' }));
    });

  it('gzips even a small /v1/graphql answer when the client accepts gzip, as the reference does', async () => {
    for (const accepted of ['gzip', 'deflate, gzip', 'br,gzip']) {
      const res = await raw(accepted);
      expect(res.encoding, accepted).to.equal('gzip');
      expect(res.vary).to.equal('Accept-Encoding');
      expect(JSON.parse(res.text)).to.deep.equal({ data: { author_by_pk: { id: 1 } } });
    }
    for (const other of [undefined, 'deflate', 'br']) {
      const res = await raw(other);
      expect(res.encoding, String(other)).to.equal(undefined);
      expect(JSON.parse(res.text)).to.deep.equal({ data: { author_by_pk: { id: 1 } } });
    }
  });

  const cases: Array<[string, string, Record<string, unknown> | undefined, string, string]> = [
    ['an unknown argument', '{ author(foo: 1) { id } }', undefined, '$.selectionSet.author', "'author' has no argument named 'foo'"],
    ['a missing required argument', '{ author_by_pk { id } }', undefined, '$.selectionSet.author_by_pk.args.id', "missing required field 'id'"],
    ['a missing selection set', '{ author }', undefined, '$.selectionSet.author.selectionSet', "missing selection set for 'author'"],
    ['a selection set on a scalar', '{ author { id { x } } }', undefined, '$.selectionSet.author.selectionSet.id', 'unexpected subselection set for non-object field'],
    ['a string for an Int', '{ author(limit: "x") { id } }', undefined, '$.selectionSet.author.args.limit', "expected a 32-bit integer for type 'Int', but found a string"],
    ['null for a required Int', '{ author_by_pk(id: null) { id } }', undefined, '$.selectionSet.author_by_pk.args.id', "expected a 32-bit integer for type 'Int', but found null"],
    ['a string for a boolean expression', '{ author(where: "x") { id } }', undefined, '$.selectionSet.author.args.where', "expected an object for type 'author_bool_exp', but found a string"],
    [
      'an unknown enum value',
      '{ author(order_by: {id: up}) { id } }',
      undefined,
      '$.selectionSet.author.args.order_by.id',
      "expected one of the values ['asc', 'asc_nulls_first', 'asc_nulls_last', 'desc', 'desc_nulls_first', 'desc_nulls_last'] for type 'order_by', but found 'up'",
    ],
    ['a string for an enum', '{ author(order_by: {id: "asc"}) { id } }', undefined, '$.selectionSet.author.args.order_by.id', "expected an enum value for type 'order_by', but found a string"],
    ['a list item of the wrong type', '{ author(where: {id: {_in: [1, "two"]}}) { id } }', undefined, '$.selectionSet.author.args.where.id._in[1]', "expected a 32-bit integer for type 'Int', but found a string"],
    [
      'a missing required input field',
      'mutation { insert_author_one(object: {name: "x"}, on_conflict: {update_columns: []}) { id } }',
      undefined,
      '$.selectionSet.insert_author_one.args.on_conflict.constraint',
      "missing required field 'constraint'",
    ],
    ['a missing required variable', 'query($id: Int!) { author_by_pk(id: $id) { id } }', {}, '$', 'expecting a value for non-nullable variable: "id"'],
    ['a variable the operation does not use', '{ author_by_pk(id: 1) { id } }', { x: 1, y: 2 }, '$', 'unexpected variables in variableValues: x, y'],
    ['a variable of the wrong kind', 'query($id: Int!) { author_by_pk(id: $id) { id } }', { id: 'one' }, '$.variableValues', "expected a 32-bit integer for type 'Int', but found a string"],
  ];
  for (const [what, query, variables, path, message] of cases) {
    it(`reports ${what} with the reference's message`, async () => {
      const res = await graphql(f.engine, query, variables);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ errors: [{ extensions: { path, code: 'validation-failed' }, message }] });
    });
  }

  it('counts variables used through fragments as used', async () => {
    const res = await graphql(f.engine, 'query($id: Int!) { ...F } fragment F on query_root { author_by_pk(id: $id) { id } }', { id: 1 });
    expect(res.body).to.deep.equal({ data: { author_by_pk: { id: 1 } } });
  });

  it('reports constraint violations with the reference prefix and the database message', async () => {
    const dup = await graphql(f.engine, 'mutation { insert_author(objects: [{id: 1, name: "x"}]) { affected_rows } }');
    expect(dup.body.errors[0]).to.deep.include({ message: 'Uniqueness violation. duplicate key value violates unique constraint "author_pkey"' });
    expect(dup.body.errors[0].extensions).to.deep.include({ code: 'constraint-violation', path: '$.selectionSet.insert_author.args.objects' });
    const fk = await graphql(f.engine, 'mutation { insert_article(objects: [{title: "x", author_id: 999}]) { affected_rows } }');
    expect(fk.body.errors[0].message).to.equal(
      'Foreign key violation. insert or update on table "article" violates foreign key constraint "article_author_id_fkey"',
    );
    const notNull = await graphql(f.engine, 'mutation { insert_article(objects: [{author_id: 1}]) { affected_rows } }');
    expect(notNull.body.errors[0].message).to.match(/^Not-NULL violation\. null value in column "title" (of relation "article" )?violates not-null constraint$/);
  });
});
