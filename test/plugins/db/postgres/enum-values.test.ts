/**
 * The postgres kind reads enum-table rows for the resolver (`readEnumValues`): key and comment
 * as text, with identifiers quoted, and a failure worded as the reference words it.
 */
import { expect } from 'chai';
import { PgSourceConnection } from '../../../../plugins/db/postgres/source-connection.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

describe('db/postgres readEnumValues', function () {
  this.timeout(60_000);
  let dbName: string;
  let connection: PgSourceConnection;

  before(async () => {
    dbName = await createTestDatabase('core3_enum_values');
    await runScript(
      dbName,
      `CREATE SCHEMA "odd ""schema""";
       CREATE TABLE "odd ""schema"""."Colour" ("the key" text PRIMARY KEY, "note" text);
       INSERT INTO "odd ""schema"""."Colour" VALUES ('red', 'Red'), ('blue', NULL);
       CREATE TABLE public.size (value text PRIMARY KEY);
       INSERT INTO public.size VALUES ('small');`,
    );
    connection = new PgSourceConnection(resolvedFor(dbName));
  });
  after(async () => {
    await connection?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  it('reads values and descriptions as text, quoting every name', async () => {
    const rows = await connection.readEnumValues({ schema: 'odd "schema"', name: 'Colour' }, 'the key', 'note');
    expect(rows).to.deep.equal([
      { value: 'red', description: 'Red' },
      { value: 'blue', description: null },
    ]);
  });

  it('gives null descriptions without a comment column', async () => {
    expect(await connection.readEnumValues({ schema: 'public', name: 'size' }, 'value', null)).to.deep.equal([{ value: 'small', description: null }]);
  });

  it('rejects with the reference wording when the table cannot be read', async () => {
    const e = await connection.readEnumValues({ schema: 'public', name: 'gone' }, 'value', null).catch((x: unknown) => x);
    expect((e as Error).message).to.equal('postgres error: relation "public.gone" does not exist');
  });
});
