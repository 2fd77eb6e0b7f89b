/**
 * The mutation compiler's program shapes (no database: the integration tests run them) and the
 * mapping of database errors to the reference engine's codes.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { FieldIR, TableRef } from '../../../../../core/graphql/ir.js';
import type { InsertIR, MutationIR, MutationReturnIR } from '../../../../../core/graphql/ir-mutation.js';
import { compileMutation } from '../../../../../plugins/db/postgres/sql/mutation/index.js';
import { queryEngineError } from '../../../../../plugins/db/postgres/query-errors.js';

const OPTIONS = { stringifyNumericTypes: false };
const author: TableRef = { schema: 'public', name: 'author' };
const article: TableRef = { schema: 'public', name: 'article' };
const text = (value: unknown) => ({ value: { kind: 'const' as const, value }, dbType: 'text' });
const columns: FieldIR[] = [{ kind: 'column', alias: 'id', name: 'id', type: 'int4' }];
const response = (fields: FieldIR[]): MutationReturnIR => ({
  output: { kind: 'response', fields: [{ kind: 'affectedRows', alias: 'affected_rows' }, { kind: 'returning', alias: 'returning', fields }] },
  selectFilter: null,
});
const insertIR = (insert: InsertIR, returning = response(columns)): MutationIR => ({
  kind: 'insert',
  source: 'default',
  insert,
  returning,
  errorPath: '$.selectionSet.insert_author.args.objects',
});
const plainInsert = (table: TableRef, name: string): InsertIR => ({
  table,
  rows: [{ columns: [{ column: 'name', value: text(name) }], relationships: [] }],
  check: null,
  updateCheck: null,
  onConflict: null,
});

describe('postgres mutation compiler', () => {
  it('writes and answers in one statement when the answer reads no relationship', () => {
    const m = compileMutation(insertIR(plainInsert(author, 'Ann')), OPTIONS);
    expect(m.program.kind).to.equal('direct');
    if (m.program.kind !== 'direct') return;
    expect(m.program.statement.text).to.match(
      /^WITH "_svc_m" AS \(INSERT INTO "public"\."author" AS "_0" \("name"\) VALUES \(\$2::text\) RETURNING \*, true AS "check__constraint"\) SELECT /,
    );
    // No check for this role: the statement reads no check at all.
    expect(m.program.statement.text).to.match(/\)::text, true( WHERE |$)/);
    expect(m.program.statement.text).not.to.contain('bool_and');
    expect(m.params.map((p) => p.value)).to.deep.equal([{ kind: 'const', value: 'Ann' }]);
  });

  it('answers from a second statement when the answer reads relationships', () => {
    const withRel: FieldIR[] = [
      ...columns,
      {
        kind: 'arrayRelationship',
        alias: 'articles',
        mapping: [['id', 'author_id']],
        select: { from: article, where: null, permissionFilter: null, orderBy: [], distinctOn: [], limit: null, offset: null, permissionLimit: null, fields: columns },
      },
    ];
    const m = compileMutation(insertIR(plainInsert(author, 'Ann'), response(withRel)), OPTIONS);
    expect(m.program.kind).to.equal('staged');
    if (m.program.kind !== 'staged') return;
    expect(m.program.output.text).to.contain('json_populate_recordset(NULL::"public"."author", $2::json)');
    expect(m.program.output.args).to.deep.equal([{ kind: 'slot', slot: 0 }, { kind: 'slot', slot: 1 }]);
  });

  it('inserts an object relationship first and feeds its key to the parent row', () => {
    const ins: InsertIR = {
      ...plainInsert(article, 'T'),
      rows: [
        {
          columns: [{ column: 'title', value: text('T') }],
          relationships: [{ name: 'author', mapping: [['author_id', 'id']], insertionOrder: 'before_parent', insert: plainInsert(author, 'A') }],
        },
      ],
    };
    const m = compileMutation(insertIR(ins), OPTIONS);
    if (m.program.kind !== 'staged' || m.program.write.kind !== 'insert' || m.program.write.node.kind !== 'perRow') {
      throw new Error(`unexpected program ${JSON.stringify(m.program)}`);
    }
    const row = m.program.write.node.rows[0]!;
    expect(row.before.map((b) => b.name)).to.deep.equal(['author']);
    expect(row.statement.text).to.contain(
      `("title", "author_id") VALUES ($3::text, (SELECT "_svc_r"."id" FROM json_populate_recordset(NULL::"public"."author", $2::json) AS "_svc_r" LIMIT 1))`,
    );
    expect(row.statement.args[0]).to.deep.equal({ kind: 'slot', slot: row.before[0]!.slot });
  });

  it('holds rows an upsert updated to the update check', () => {
    const cond = (v: string) => ({ kind: 'compare' as const, lhs: { kind: 'column' as const, name: 'name', type: 'text' }, op: '_eq' as const, rhs: text(v) });
    const ins: InsertIR = {
      ...plainInsert(author, 'Ann'),
      check: cond('ins'),
      updateCheck: cond('upd'),
      onConflict: { constraint: 'author_pkey', updateColumns: ['name'], presets: [], where: null },
    };
    const m = compileMutation(insertIR(ins), OPTIONS);
    if (m.program.kind !== 'direct') throw new Error('expected one statement');
    expect(m.program.statement.text).to.contain('ON CONFLICT ON CONSTRAINT "author_pkey" DO UPDATE SET "name" = EXCLUDED."name"');
    expect(m.program.statement.text).to.match(/\(CASE WHEN "_0"\."xmax" = 0 THEN \("_0"\."name" = \$\d::text\) ELSE \("_0"\."name" = \$\d::text\) END\)/);
  });

  it('needs no statement when there is nothing to write', () => {
    const m = compileMutation(insertIR({ ...plainInsert(author, 'x'), rows: [] }), OPTIONS);
    expect(m.program).to.deep.equal({ kind: 'constant', json: '{"affected_rows":0,"returning":[]}' });
  });
});

describe('postgres mutation errors', () => {
  const dbError = (code: string, message: string): pg.DatabaseError => {
    const e = new pg.DatabaseError(message, message.length, 'error');
    e.code = code;
    return e;
  };
  const mapped = (code: string, message = 'detail') => {
    const e = queryEngineError(dbError(code, message), 'SELECT 1', []);
    return { code: e.code, message: e.message };
  };

  it('maps SQLSTATEs to the reference codes and prefixes', () => {
    expect(mapped('23505')).to.deep.equal({ code: 'constraint-violation', message: 'Uniqueness violation. detail' });
    expect(mapped('23503')).to.deep.equal({ code: 'constraint-violation', message: 'Foreign key violation. detail' });
    expect(mapped('23502')).to.deep.equal({ code: 'constraint-violation', message: 'Not-NULL violation. detail' });
    expect(mapped('23P01')).to.deep.equal({ code: 'constraint-violation', message: 'Exclusion violation. detail' });
    expect(mapped('23001')).to.deep.equal({ code: 'constraint-violation', message: 'Can not delete or update due to data being referred. detail' });
    expect(mapped('23000')).to.deep.equal({ code: 'constraint-violation', message: 'detail' });
    expect(mapped('23514')).to.deep.equal({ code: 'permission-error', message: 'Check constraint violation. detail' });
    expect(mapped('22007')).to.deep.equal({ code: 'data-exception', message: 'detail' });
    expect(mapped('22025')).to.deep.equal({ code: 'bad-request', message: 'detail' });
    expect(mapped('42P10')).to.deep.equal({ code: 'constraint-error', message: 'there is no unique or exclusion constraint on target column(s)' });
    expect(mapped('42704')).to.deep.equal({ code: 'constraint-error', message: 'detail' });
    expect(mapped('40001')).to.deep.equal({ code: 'concurrent-update', message: 'serialization failure due to concurrent update' });
    expect(mapped('P0001')).to.deep.equal({ code: 'unexpected', message: 'database query error' });
  });
});
