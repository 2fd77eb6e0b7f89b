/**
 * Nested selections: object and array relationships three levels deep, each with its own
 * where/order/limit, single-row roots, `__typename`, and the JSON shapes (key order, nulls,
 * empty arrays). The expected documents are assembled in JS from plain SELECTs.
 */
import { expect } from 'chai';
import type { FieldIR, SelectIR } from '../../../../../core/graphql/ir.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { byColumn, cmp, constant, field, listField, run, select, singleField, variable } from './ir-helpers.js';

interface Row {
  [k: string]: unknown;
}

const commenter: FieldIR = {
  kind: 'objectRelationship',
  alias: 'commenter',
  mapping: [['author_id', 'id']],
  select: select('author', [field('name', 'text'), { kind: 'typename', alias: '__typename', typeName: 'author' }]),
};

const comments: FieldIR = {
  kind: 'arrayRelationship',
  alias: 'top_comments',
  mapping: [['id', 'article_id']],
  select: select('comment', [field('id', 'int4'), field('body', 'text', 'text'), commenter], {
    where: cmp('body', 'text', '_is_null', constant(false, 'boolean')),
    orderBy: [byColumn('likes', 'desc', 'last'), byColumn('id')],
    limit: constant(2, 'int4'),
  }),
};

const statusInfo: FieldIR = {
  kind: 'objectRelationship',
  alias: 'status_info',
  mapping: [['status', 'value']],
  select: select('article_status', [field('value', 'text'), field('comment', 'text')]),
};

const articles: FieldIR = {
  kind: 'arrayRelationship',
  alias: 'articles',
  mapping: [['id', 'author_id']],
  select: select('article', [field('id', 'int4'), field('title', 'text'), field('published_at', 'timestamptz'), statusInfo, comments], {
    where: cmp('rating', 'int4', '_gte', variable('minRating', 'int4')),
    orderBy: [byColumn('published_at', 'desc'), byColumn('id')],
    limit: constant(2, 'int4'),
  }),
};

const authorsSelect: SelectIR = select(
  'author',
  [field('id', 'int4'), { kind: 'typename', alias: '__typename', typeName: 'author' }, field('name', 'text', 'display_name'), articles],
  { orderBy: [byColumn('id')] },
);

async function expectedAuthors(db: FixtureDb, minRating: number): Promise<Row[]> {
  const out: Row[] = [];
  for (const a of await db.rows<{ id: number; name: string }>('SELECT id, name FROM author ORDER BY id')) {
    const arts: Row[] = [];
    const artRows = await db.rows<{ id: number; title: string; pub: string | null; status: string | null }>(
      `SELECT id, title, to_json(published_at) #>> '{}' AS pub, status FROM article
       WHERE author_id = $1 AND rating >= $2 ORDER BY published_at DESC NULLS FIRST, id LIMIT 2`,
      [a.id, minRating],
    );
    for (const ar of artRows) {
      const st = ar.status === null ? [] : await db.rows<{ value: string; comment: string | null }>('SELECT value, comment FROM article_status WHERE value = $1', [ar.status]);
      const cs: Row[] = [];
      for (const c of await db.rows<{ id: number; body: string; author_id: number | null }>(
        'SELECT id, body, author_id FROM comment WHERE article_id = $1 AND body IS NOT NULL ORDER BY likes DESC NULLS LAST, id LIMIT 2',
        [ar.id],
      )) {
        const who = c.author_id === null ? [] : await db.rows<{ name: string }>('SELECT name FROM author WHERE id = $1', [c.author_id]);
        cs.push({ id: c.id, text: c.body, commenter: who[0] ? { name: who[0].name, __typename: 'author' } : null });
      }
      arts.push({ id: ar.id, title: ar.title, published_at: ar.pub, status_info: st[0] ? { value: st[0].value, comment: st[0].comment } : null, top_comments: cs });
    }
    out.push({ id: a.id, __typename: 'author', display_name: a.name, articles: arts });
  }
  return out;
}

describe('postgres sql compiler: relationships', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
  });
  after(async () => {
    await db?.drop();
  });

  it('nests object and array relationships three levels deep, each with its own arguments', async () => {
    for (const minRating of [4, 1]) {
      const got = await run(db, listField(authorsSelect), { variables: { minRating } });
      const expected = await expectedAuthors(db, minRating);
      // Key order is part of the response: compare the serialisations, not just the values.
      expect(JSON.stringify(got)).to.equal(JSON.stringify(expected));
    }
  });

  it('empty array relationships are [] and missing object relationships are null', async () => {
    const got = (await run(db, listField(authorsSelect), { variables: { minRating: 5 } })) as Array<{ id: number; articles: Row[] }>;
    const bob = got.find((a) => a.id === 2)!;
    expect(bob.articles).to.deep.equal([]);
    const carol = got.find((a) => a.id === 3)!;
    expect(carol.articles[0]!.status_info).to.equal(null);
  });

  it('an object relationship hidden by the target permission filter is null', async () => {
    const author: FieldIR = {
      kind: 'objectRelationship',
      alias: 'author',
      mapping: [['author_id', 'id']],
      select: select('author', [field('name', 'text')], { permissionFilter: cmp('is_active', 'boolean', '_eq', constant(true, 'boolean')) }),
    };
    const got = (await run(db, listField(select('article', [field('id', 'int4'), author], { orderBy: [byColumn('id')] })))) as Array<{ id: number; author: Row | null }>;
    const expected = await db.rows<{ id: number; name: string | null }>(
      'SELECT ar.id, au.name FROM article ar LEFT JOIN author au ON au.id = ar.author_id AND au.is_active ORDER BY ar.id',
    );
    expect(got).to.deep.equal(expected.map((r) => ({ id: r.id, author: r.name === null ? null : { name: r.name } })));
  });

  it('array relationships honour distinct_on, offset and the permission limit', async () => {
    const arts: FieldIR = {
      kind: 'arrayRelationship',
      alias: 'by_status',
      mapping: [['id', 'author_id']],
      select: select('article', [field('status', 'text'), field('id', 'int4')], {
        distinctOn: ['status'],
        orderBy: [byColumn('status'), byColumn('id', 'desc')],
        offset: constant(1, 'int4'),
        permissionLimit: 1,
      }),
    };
    const got = (await run(db, listField(select('author', [field('id', 'int4'), arts], { orderBy: [byColumn('id')] })))) as Array<{ id: number; by_status: Row[] }>;
    for (const a of got) {
      const expected = await db.rows(
        'SELECT DISTINCT ON (status) status, id FROM article WHERE author_id = $1 ORDER BY status ASC NULLS LAST, id DESC LIMIT 1 OFFSET 1',
        [a.id],
      );
      expect(a.by_status, `author ${a.id}`).to.deep.equal(expected);
    }
    expect(got.find((a) => a.id === 1)!.by_status).to.have.length(1);
  });

  it('a single-row root is an object, or null when nothing matches', async () => {
    const byPk = (id: number) =>
      singleField(select('author', [field('id', 'int4'), field('name', 'text'), articles], { where: cmp('id', 'int4', '_eq', constant(id, 'int4')) }));
    const got = (await run(db, byPk(4), { variables: { minRating: 0 } })) as Row;
    expect(got).to.deep.include({ id: 4, name: "O'Brien \\ Dan" });
    expect((got.articles as Row[]).map((a) => a.title)).to.deep.equal(['Zeta_%']);
    expect(await run(db, byPk(99), { variables: { minRating: 0 } })).to.equal(null);
  });

  it('an empty list is []', async () => {
    expect(await run(db, listField(select('author', [field('id', 'int4')], { where: { kind: 'false' } })))).to.deep.equal([]);
  });

  it('renders column values as the database does: jsonb, arrays, numerics, booleans, nulls', async () => {
    const fields = ['profile', 'tags', 'rating', 'score', 'balance', 'is_active', 'email'].map((c) => field(c, 'x'));
    const got = await run(db, listField(select('author', fields, { orderBy: [byColumn('id')] })));
    const expected = await db.rows<{ r: Row }>(
      'SELECT json_build_object(\'profile\', profile, \'tags\', tags, \'rating\', rating, \'score\', score, \'balance\', balance, \'is_active\', is_active, \'email\', email) AS r FROM author ORDER BY id',
    );
    expect(got).to.deep.equal(expected.map((r) => r.r));
  });
});
