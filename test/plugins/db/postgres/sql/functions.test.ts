/**
 * Function calls in compiled SQL: a select FROM a function (positional and named arguments, the
 * session argument as `$1`), scalar computed fields in rows, `where` and `order_by`, and a table
 * computed field as a LATERAL call with the parent row. Results are checked against plain SQL.
 */
import { expect } from 'chai';
import type { FieldIR, FunctionCallIR } from '../../../../../core/graphql/ir.js';
import { compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { T, byColumn, constant, field, listField, orderBy, run, select, variable } from './ir-helpers.js';

const FUNCTIONS = `
CREATE FUNCTION titled(pattern text, min_rating int DEFAULT 0) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE pattern AND coalesce(rating, 0) >= min_rating
$$ LANGUAGE sql STABLE;
CREATE FUNCTION by_session_author(s json) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = (s->>'x-svc-user-id')::int
$$ LANGUAGE sql STABLE;
CREATE FUNCTION shout(a author) RETURNS text AS $$ SELECT upper(a.name) $$ LANGUAGE sql STABLE;
CREATE FUNCTION best(a author, n int) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = a.id ORDER BY rating DESC NULLS LAST, id LIMIT n
$$ LANGUAGE sql STABLE;
`;

const call = (name: string, args: FunctionCallIR['args']): FunctionCallIR => ({ function: T(name), args });
const shout = call('shout', [{ name: null, value: { kind: 'row' } }]);

describe('db/postgres compiler: function calls', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
    await db.client.query(FUNCTIONS);
  });
  after(async () => db?.drop());

  it('selects from a function, positional arguments first and named ones after', async () => {
    const fn = call('titled', [{ name: 'min_rating', value: { kind: 'value', value: variable('min', 'int4') } }]);
    fn.args.unshift({ name: null, value: { kind: 'value', value: constant('%a%', 'text') } });
    const ir = listField(select('article', [field('id', 'int4')], { function: fn, orderBy: [byColumn('id')] }));
    const st = compileRootField(ir, { stringifyNumericTypes: false });
    expect(st.text).to.contain('FROM "public"."titled"($2::text, "min_rating" => $3::int4) AS ');
    const rows = await run(db, ir, { variables: { min: 4 } });
    expect(rows).to.deep.equal(await db.rows(`SELECT id FROM titled('%a%', min_rating => 4) ORDER BY id`));
  });

  it('passes the session JSON to a session argument', async () => {
    const fn = call('by_session_author', [{ name: null, value: { kind: 'session', dbType: 'json' } }]);
    const ir = listField(select('article', [field('id', 'int4')], { function: fn, orderBy: [byColumn('id')] }));
    expect(compileRootField(ir, { stringifyNumericTypes: false }).text).to.contain('"public"."by_session_author"(($1)::json)');
    expect(await run(db, ir, { session: { 'x-svc-user-id': '2' } })).to.deep.equal(await db.rows('SELECT id FROM article WHERE author_id = 2 ORDER BY id'));
  });

  it('computes a scalar computed field from the row, and filters and orders by it', async () => {
    const computed: FieldIR = { kind: 'computedScalar', alias: 'loud', call: shout, type: 'text' };
    const ir = listField(
      select('author', [field('id', 'int4'), computed], {
        where: { kind: 'compare', lhs: { kind: 'computed', call: shout, type: 'text' }, op: '_like', rhs: constant('%E%', 'text') },
        orderBy: [orderBy({ kind: 'computed', call: shout, type: 'text' }, 'desc')],
        limit: constant(3, 'int4'),
      }),
    );
    const expected = await db.rows(`SELECT a.id, shout(a) AS loud FROM author a WHERE shout(a) LIKE '%E%' ORDER BY shout(a) DESC LIMIT 3`);
    expect(await run(db, ir)).to.deep.equal(expected);
  });

  it('calls a table computed field per parent row through a LATERAL join', async () => {
    const best: FieldIR = {
      kind: 'computedTable',
      alias: 'best',
      select: select('article', [field('id', 'int4')], {
        function: call('best', [
          { name: null, value: { kind: 'row' } },
          { name: null, value: { kind: 'value', value: constant(2, 'int4') } },
        ]),
        where: { kind: 'compare', lhs: { kind: 'column', name: 'rating', type: 'int4' }, op: '_gte', rhs: constant(2, 'int4') },
      }),
    };
    const ir = listField(select('author', [field('id', 'int4'), best], { orderBy: [byColumn('id')] }));
    const text = compileRootField(ir, { stringifyNumericTypes: false }).text;
    expect(text).to.contain('LEFT JOIN LATERAL');
    expect(text).to.contain('"public"."best"(');
    const got = (await run(db, ir)) as Array<{ id: number; best: Array<{ id: number }> }>;
    for (const a of got) {
      const expected = await db.rows(`SELECT id FROM best((SELECT a FROM author a WHERE id = $1), 2) WHERE rating >= 2`, [a.id]);
      expect(a.best).to.deep.equal(expected);
    }
  });
});
