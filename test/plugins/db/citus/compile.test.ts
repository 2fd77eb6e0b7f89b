/**
 * What the citus connection changes in the PostgreSQL compiler's output: reads, mutations (both
 * the one-statement and the staged programs) and multiplexed subscriptions build their rows with
 * `json_build_object`, where the postgres connection uses `row_to_json` of a lateral row; the
 * rest of each statement is the same text. No database: compiling opens nothing.
 */
import { expect } from 'chai';
import type { FieldIR, RootFieldIR, SelectIR, TableRef } from '../../../../core/graphql/ir.js';
import type { MutationIR } from '../../../../core/graphql/ir-mutation.js';
import { resolvePgSourceConfiguration } from '../../../../plugins/db/postgres/connection-info.js';
import { PgSourceConnection } from '../../../../plugins/db/postgres/source-connection.js';
import { CitusSourceConnection } from '../../../../plugins/db/citus/source-connection.js';

const OPTIONS = { stringifyNumericTypes: false };
const author: TableRef = { schema: 'public', name: 'author' };
const article: TableRef = { schema: 'public', name: 'article' };
const columns: FieldIR[] = [
  { kind: 'column', alias: 'id', name: 'id', type: 'int4' },
  { kind: 'column', alias: 'name', name: 'name', type: 'text' },
];
const select = (from: TableRef, fields: FieldIR[]): SelectIR => ({
  from,
  where: null,
  permissionFilter: null,
  orderBy: [],
  distinctOn: [],
  limit: null,
  offset: null,
  permissionLimit: null,
  fields,
});
const withArticles: FieldIR[] = [
  ...columns,
  { kind: 'arrayRelationship', alias: 'articles', mapping: [['id', 'author_id']], select: select(article, [{ kind: 'column', alias: 'title', name: 'title', type: 'text' }]) },
];
const query: RootFieldIR = { kind: 'select', source: 'default', select: select(author, withArticles), single: false };
const insert = (fields: FieldIR[]): MutationIR => ({
  kind: 'insert',
  source: 'default',
  insert: {
    table: author,
    rows: [{ columns: [{ column: 'name', value: { value: { kind: 'const', value: 'Ann' }, dbType: 'text' } }], relationships: [] }],
    check: null,
    updateCheck: null,
    onConflict: null,
  },
  returning: { output: { kind: 'response', fields: [{ kind: 'affectedRows', alias: 'affected_rows' }, { kind: 'returning', alias: 'returning', fields }] }, selectFilter: null },
  errorPath: '$.selectionSet.insert_author.args.objects',
});

const configuration = { connection_info: { database_url: 'postgres://nobody@127.0.0.1:1/none' } };
const pgConn = new PgSourceConnection(resolvePgSourceConfiguration(configuration, {}));
const citusConn = new CitusSourceConnection(resolvePgSourceConfiguration(configuration, {}), 'pg_catalog');

/** Every statement text of a compiled mutation, whatever its program's shape. */
function textsOf(compiled: unknown): string {
  return JSON.stringify(compiled, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}

describe('db/citus compiler output', () => {
  after(async () => {
    await pgConn.close();
    await citusConn.close();
  });

  it('builds the rows of a read with json_build_object', () => {
    const pg = pgConn.compileQuery(query, OPTIONS).text;
    const citus = citusConn.compileQuery(query, OPTIONS).text;
    expect(pg).to.include('row_to_json');
    expect(citus).to.not.include('row_to_json').and.not.include('CROSS JOIN LATERAL');
    expect(citus).to.include(`json_build_object('id', "_0"."id", 'name', "_0"."name", 'articles', `);
    // Everything else is the PostgreSQL compiler's: same FROM, same relationship join, same parameters.
    expect(citus).to.include('FROM "public"."author"').and.include('FROM "public"."article"');
    expect(citusConn.compileQuery(query, OPTIONS).params).to.deep.equal(pgConn.compileQuery(query, OPTIONS).params);
  });

  it('builds the rows a mutation returns with json_build_object, in both program shapes', () => {
    for (const fields of [columns, withArticles]) {
      expect(textsOf(pgConn.compileMutation(insert(fields), OPTIONS))).to.include('row_to_json');
      const citus = textsOf(citusConn.compileMutation(insert(fields), OPTIONS));
      expect(citus).to.include('json_build_object').and.not.include('row_to_json');
      expect(citus).to.include('INSERT INTO \\"public\\".\\"author\\"');
    }
  });

  it('builds the rows of a multiplexed subscription with json_build_object', () => {
    const fields = [{ kind: 'root' as const, key: 'author', ir: query }];
    const pg = pgConn.compileMultiplexed(fields, OPTIONS) as unknown as { text: string };
    const citus = citusConn.compileMultiplexed(fields, OPTIONS) as unknown as { text: string };
    expect(pg.text).to.include('row_to_json');
    expect(citus.text).to.include('UNNEST((').and.include('json_build_object').and.not.include('row_to_json');
  });

  it('leaves the engine\'s options as they were', () => {
    const options = { stringifyNumericTypes: true };
    citusConn.compileQuery(query, options);
    expect(options).to.deep.equal({ stringifyNumericTypes: true });
  });
});
