/**
 * Generated schemas for the fuzzing: tables and columns whose names are full of quotes,
 * backslashes, spaces and unicode (within PostgreSQL's 63-byte identifier limit), created through
 * run_sql with the names quoted, tracked with GraphQL custom names, and queried by the admin with
 * nasty values. They exercise identifier quoting in introspection, metadata and the compiler.
 */
import fc from 'fast-check';
import { printJsonAsGql, nastyString } from './graphql-inputs.js';

const identifier: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('"', "'", '\\', ' ', '$', ';--', 'ß', '🙂', '\u202e', 'select', 'A"B', "o'neil", '%s', 'x'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
  )
  .map(([a, b]) => (a + b).replace(/\u0000/g, ''))
  .filter((s) => s.trim().length > 0 && Buffer.byteLength(s) <= 63);

export interface GeneratedTable {
  sqlName: string;
  gqlName: string;
  columns: Array<{ sqlName: string; gqlName: string; type: 'text' | 'numeric' | 'jsonb' }>;
}

export const generatedTables = (count: number, seed: number): GeneratedTable[] => {
  const names = fc.sample(fc.uniqueArray(identifier, { minLength: count * 4, maxLength: count * 4, selector: (s) => s.toLowerCase() }), { numRuns: 1, seed })[0]!;
  return Array.from({ length: count }, (_, t) => ({
    sqlName: names[t * 4]!,
    gqlName: `gen_${t}`,
    columns: (['text', 'numeric', 'jsonb'] as const).map((type, c) => ({ sqlName: names[t * 4 + 1 + c]!, gqlName: `c${c}`, type })),
  }));
};

const quote = (id: string): string => `"${id.replace(/"/g, '""')}"`;

export function createTableSql(t: GeneratedTable): string {
  const cols = t.columns.map((c) => `${quote(c.sqlName)} ${c.type}`).join(', ');
  return `CREATE TABLE ${quote(t.sqlName)} (id serial CONSTRAINT ${t.gqlName}_pkey PRIMARY KEY, ${cols});
    ${insertRowsSql(t)}`;
}

function insertRowsSql(t: GeneratedTable): string {
  const values = `('a''b\\\\c', 1.5, '{"k": "v"}'), ('🙂', -2, '[1, 2]'), (NULL, NULL, NULL)`;
  return `INSERT INTO ${quote(t.sqlName)} (${t.columns.map((c) => quote(c.sqlName)).join(', ')}) VALUES ${values};`;
}

/** Empties the table and puts its three rows back (after a fuzzed mutation). */
export function refillTableSql(t: GeneratedTable): string {
  return `TRUNCATE ${quote(t.sqlName)} RESTART IDENTITY; ${insertRowsSql(t)}`;
}

export function trackTableArgs(t: GeneratedTable): Record<string, unknown> {
  return {
    table: { schema: 'public', name: t.sqlName },
    configuration: {
      custom_name: t.gqlName,
      column_config: Object.fromEntries(t.columns.map((c) => [c.sqlName, { custom_name: c.gqlName }])),
    },
  };
}

/** An admin query over one generated table with a nasty comparison value. */
export const generatedQuery = (tables: readonly GeneratedTable[]): fc.Arbitrary<string> =>
  fc
    .record({
      t: fc.integer({ min: 0, max: tables.length - 1 }),
      c: fc.integer({ min: 0, max: 2 }),
      op: fc.constantFrom('_eq', '_neq', '_gt', '_in', '_is_null', '_like', '_contains'),
      value: fc.oneof(nastyString.map((s) => JSON.stringify(s)), fc.constantFrom('1e400', '-0', '18446744073709551616', 'true', 'null', '[]'), fc.jsonValue().map(printJsonAsGql)),
      order: fc.constantFrom('asc', 'desc_nulls_last', '"x"'),
    })
    .map(({ t, c, op, value, order }) => {
      const table = tables[t]!;
      const column = table.columns[c]!.gqlName;
      const v = op === '_in' ? `[${value}]` : op === '_is_null' ? 'true' : value;
      return `{ ${table.gqlName}(where: {${column}: {${op}: ${v}}}, order_by: {${column}: ${order}}) { id c0 c1 c2 } }`;
    });
