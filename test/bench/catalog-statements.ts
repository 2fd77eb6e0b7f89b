/**
 * `npx tsx test/bench/catalog-statements.ts [--tables 1000] [--rounds 15]`: PostgreSQL's time for
 * the catalog statements of one metadata operation over the scale schema (test/bench/scale-schema.ts):
 * the whole introspection, the catalog state (the fingerprint read on every operation,
 * plugins/db/postgres/catalog-state.ts) and the per-relation read that follows a new table
 * (catalog-refresh.ts). Wall-clock of each statement from one client, medians and minimums.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { CATALOG_STATE_SQL } from '../../plugins/db/postgres/catalog-state.js';
import { INTROSPECT_SQL, introspectRelationsSql } from '../../plugins/db/postgres/introspect-sql.js';
import { createTestDatabase } from '../helpers/database.js';
import { createExtraTable, createScaleTables } from './scale-schema.js';

const { values } = parseArgs({ options: { tables: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '15' } } });
const db = await createTestDatabase('catalog_statements');
try {
  await createScaleTables(db.url, Number(values.tables));
  await createExtraTable(db.url, 'extra_1');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('SET jit = off');
    const { rows } = await client.query<{ oid: number }>(`SELECT 'extra_1'::regclass::oid::int8 AS oid`);
    const statements: Record<string, string> = {
      'whole introspection': INTROSPECT_SQL,
      'catalog state': CATALOG_STATE_SQL,
      'one new relation': introspectRelationsSql([Number(rows[0]!.oid)]),
    };
    const times: Record<string, number[]> = {};
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const [name, sql] of Object.entries(statements)) {
        const start = performance.now();
        await client.query(sql);
        (times[name] ??= []).push(performance.now() - start);
      }
    }
    for (const [name, xs] of Object.entries(times)) {
      xs.sort((a, b) => a - b);
      console.log(`${name}: median ${xs[Math.floor(xs.length / 2)]!.toFixed(1)} ms, min ${xs[0]!.toFixed(1)} ms`);
    }
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await client.end();
  }
} finally {
  await db.drop();
}
