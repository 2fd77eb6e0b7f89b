/**
 * The same tables in PostgreSQL (the engine's own database, `public`) and in the machine's
 * MariaDB (a database of their own, tracked with an `m_` custom name), behind one engine, so a
 * test can ask both kinds the same query and compare the answers.
 */
import { expect } from 'chai';
import { createConnection, type Connection } from 'mysql2/promise';
import { randomBytes } from 'node:crypto';
import type { Engine } from '../../../../core/engine.js';
import type { ServerConfig } from '../../../../core/config/types.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { metadata, startTestEngine } from '../../../helpers/engine.js';

export const ADMIN = { 'x-svc-admin-secret': 'secret' };
export const MARIA = { host: process.env['SVC_TEST_MARIADB_HOST'] ?? '127.0.0.1', port: Number(process.env['SVC_TEST_MARIADB_PORT'] ?? 3306), user: 'root' };

export interface TwinSpec {
  prefix: string;
  /** Statements creating and filling the tables, per kind. */
  pgSql: string;
  mariaSql: (database: string) => string[];
  tables: string[];
  /** Array relationships `[table, name, remote table, remote column]` (manual, on `id`). */
  arrays?: Array<[string, string, string, string]>;
  config?: Partial<ServerConfig>;
}

export interface Twin {
  engine: Engine;
  maria: Connection;
  database: string;
  /** The answer of a query against PostgreSQL (as written) and MariaDB (`m_<table>`), normalised JSON text. */
  both(query: string, variables?: Record<string, unknown>): Promise<{ pg: string; maria: string }>;
  /** Asks both and expects the same answer; returns it. */
  same(query: string, variables?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startTwin(spec: TwinSpec): Promise<Twin> {
  const database = `gaps_${spec.prefix}_${randomBytes(4).toString('hex')}`;
  const maria = await createConnection({ ...MARIA, multipleStatements: false });
  await maria.query(`CREATE DATABASE ${database}`);
  for (const sql of spec.mariaSql(database)) await maria.query(sql);
  let pg: TestDatabase | undefined;
  let engine: Engine | undefined;
  try {
    pg = await createTestDatabase(`maria_${spec.prefix}`, spec.pgSql);
    engine = await startTestEngine({ databaseUrl: pg.url, adminSecret: 'secret', unauthorizedRole: undefined, ...spec.config });
    const steps: unknown[] = [{ type: 'maria_add_source', args: { name: 'maria', configuration: { connection_info: { ...MARIA, database, pool_settings: { max_connections: 2 } } } } }];
    for (const t of spec.tables) {
      steps.push({ type: 'pg_track_table', args: { table: t } });
      steps.push({ type: 'maria_track_table', args: { source: 'maria', table: { schema: database, name: t }, configuration: { custom_name: `m_${t}` } } });
    }
    for (const [t, name, remote, column] of spec.arrays ?? []) {
      steps.push({ type: 'pg_create_array_relationship', args: { table: t, name, using: { manual_configuration: { remote_table: remote, column_mapping: { id: column } } } } });
      steps.push({
        type: 'maria_create_array_relationship',
        args: { source: 'maria', table: { schema: database, name: t }, name, using: { manual_configuration: { remote_table: { schema: database, name: remote }, column_mapping: { id: column } } } },
      });
    }
    for (const step of steps) {
      const r = await metadata(engine, step, ADMIN);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    }
  } catch (e) {
    await engine?.close();
    await pg?.drop();
    await maria.query(`DROP DATABASE IF EXISTS ${database}`);
    await maria.end();
    throw e;
  }
  const started = engine;
  const run = async (q: string, variables?: Record<string, unknown>): Promise<string> => {
    const res = await fetch(`${started.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...ADMIN }, body: JSON.stringify({ query: q, variables }) });
    // The kinds space their JSON differently; the values (and key order) are what must match.
    return JSON.stringify(JSON.parse(await res.text()));
  };
  const names = new RegExp(`\\b(insert_|update_|delete_)?(${spec.tables.join('|')})(?=[_\\s({:]|$)`, 'g');
  const back = new RegExp(`(?<![A-Za-z0-9])m_(${spec.tables.join('|')})`, 'g');
  const both = async (query: string, variables?: Record<string, unknown>) => ({
    pg: await run(query, variables),
    maria: (await run(query.replace(names, (_m, op: string | undefined, t: string) => `${op ?? ''}m_${t}`), variables)).replace(back, '$1'),
  });
  const droppedPg = pg;
  return {
    engine: started,
    maria,
    database,
    both,
    async same(query, variables) {
      const r = await both(query, variables);
      expect(r.maria, query).to.equal(r.pg);
      return r.maria;
    },
    async close() {
      await started.close();
      await droppedPg.drop();
      await maria.query(`DROP DATABASE IF EXISTS ${database}`);
      await maria.end();
    },
  };
}
