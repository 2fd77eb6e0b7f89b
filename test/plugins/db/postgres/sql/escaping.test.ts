/**
 * Hostile strings never become SQL: values are parameters (their text never appears in the
 * statement), and names (aliases, identifiers, session variable names, type names) are quoted.
 */
import { expect } from 'chai';
import type { FieldIR } from '../../../../../core/graphql/ir.js';
import { compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { byColumn, cmp, constant, execute, field, listField, run, select, session, variable } from './ir-helpers.js';

const HOSTILE = [`'); drop table author; --`, `O'Brien \\ Dan`, '$1', '$2::int', '\\', '\\\\\'', '"quoted"', `'' OR ''=''`, 'ünï©ødé 💥', '%_'];

describe('postgres sql compiler: escaping', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
    await db.client.query(`CREATE TABLE "we""ird tab" (id int PRIMARY KEY, "co""l" text, "Mixed Case" int)`);
    await db.client.query(`INSERT INTO "we""ird tab" VALUES (1, 'a', 10), (2, 'b"''\\', 20)`);
  });
  after(async () => {
    await db?.drop();
  });

  const authorCount = async () => Number((await db.rows<{ n: string }>('SELECT count(*) AS n FROM author'))[0]!.n);

  it('constant and variable values never appear in the statement text', async () => {
    for (const v of HOSTILE) {
      for (const rhs of [constant(v, 'text'), variable('v', 'text')]) {
        const st = compileRootField(listField(select('author', [field('id', 'int4')], { where: cmp('name', 'text', '_eq', rhs) })), { stringifyNumericTypes: false });
        if (v.length > 2) expect(st.text, v).to.not.include(v);
        const got = JSON.parse(await execute(db, st, { variables: { v } })) as Array<{ id: number }>;
        const expected = await db.rows<{ id: number }>('SELECT id FROM author WHERE name = $1', [v]);
        expect(got, v).to.deep.equal(expected);
      }
    }
    expect(await authorCount()).to.equal(5);
  });

  it('finds the row whose value has a quote and a backslash', async () => {
    const got = await run(db, listField(select('author', [field('id', 'int4')], { where: cmp('name', 'text', '_eq', constant(`O'Brien \\ Dan`, 'text')) })));
    expect(got).to.deep.equal([{ id: 4 }]);
  });

  it('hostile values inside arrays and jsonb are still only parameters', async () => {
    const where = {
      kind: 'or' as const,
      items: [
        cmp('name', 'text', '_in', constant(HOSTILE, 'text', true)),
        cmp('profile', 'jsonb', '_contains', constant({ city: HOSTILE[0] }, 'jsonb')),
        cmp('profile', 'jsonb', '_has_keys_any', constant(HOSTILE, 'text', true)),
        cmp('profile', 'jsonb', '_eq', constant(HOSTILE[0], 'jsonb')),
      ],
    };
    const st = compileRootField(listField(select('author', [field('id', 'int4')], { where })), { stringifyNumericTypes: false });
    for (const v of HOSTILE) if (v.length > 2) expect(st.text).to.not.include(v);
    expect(JSON.parse(await execute(db, st))).to.deep.equal([{ id: 4 }]);
  });

  it('aliases with quotes, backslashes and SQL come back as exact JSON keys', async () => {
    const aliases = ['a"b', `x'); drop table author; --`, 'back\\slash', '$1', "it's", 'ключ'];
    const fields: FieldIR[] = aliases.map((a) => field('id', 'int4', a));
    fields.push({ kind: 'typename', alias: '__typename', typeName: `it's "typed" \\` });
    const got = (await run(db, listField(select('author', fields, { orderBy: [byColumn('id')], limit: constant(1, 'int4') })))) as Array<Record<string, unknown>>;
    expect(got).to.deep.equal([{ ...Object.fromEntries(aliases.map((a) => [a, 1])), __typename: `it's "typed" \\` }]);
    expect(await authorCount()).to.equal(5);
  });

  it('aliases longer than 63 bytes keep their full name', async () => {
    const long = 'a'.repeat(40) + 'é'.repeat(20);
    const got = await run(db, listField(select('author', [field('id', 'int4', long), field('name', 'text', 'b'.repeat(70))], { orderBy: [byColumn('id')], limit: constant(1, 'int4') })));
    expect(got).to.deep.equal([{ [long]: 1, ['b'.repeat(70)]: 'Alice' }]);
  });

  it('more than 50 fields, with short and with long aliases', async () => {
    for (const prefix of ['f', 'x'.repeat(64)]) {
      const fields = Array.from({ length: 120 }, (_, i) => field(i % 2 ? 'name' : 'id', 'x', `${prefix}${i}`));
      const got = (await run(db, listField(select('author', fields, { orderBy: [byColumn('id')], limit: constant(1, 'int4') })))) as Array<Record<string, unknown>>;
      expect(Object.keys(got[0]!)).to.deep.equal(fields.map((f) => (f as { alias: string }).alias));
      expect(got[0]![`${prefix}1`]).to.equal('Alice');
      expect(got[0]![`${prefix}118`]).to.equal(1);
    }
  });

  it('quotes table and column names', async () => {
    const sel = { ...select('we"ird tab', [field('co"l', 'text', 'c'), field('Mixed Case', 'int4', 'm')], { orderBy: [byColumn('id')] }) };
    expect(await run(db, listField(sel))).to.deep.equal([{ c: 'a', m: 10 }, { c: `b"'\\`, m: 20 }]);
  });

  it('quotes session variable names', async () => {
    const st = compileRootField(
      listField(select('author', [field('id', 'int4')], { permissionFilter: cmp('name', 'text', '_eq', session(`x-svc-it's \\`, 'text')) })),
      { stringifyNumericTypes: false },
    );
    expect(JSON.parse(await execute(db, st, { session: { [`x-svc-it's \\`]: 'Eve' } }))).to.deep.equal([{ id: 5 }]);
  });

  it('a hostile type name is an identifier, not SQL', async () => {
    const st = compileRootField(listField(select('author', [field('id', 'int4')], { where: cmp('id', 'int4', '_eq', constant(1, 'int4); drop table author; --')) })), { stringifyNumericTypes: false });
    let code: unknown;
    try {
      await execute(db, st);
    } catch (e) {
      code = (e as { code?: unknown }).code;
    }
    expect(code).to.equal('42704'); // undefined_object: the whole string was taken as a type name
    expect(await authorCount()).to.equal(5);
  });
});
