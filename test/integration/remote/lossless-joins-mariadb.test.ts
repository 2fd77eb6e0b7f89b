/**
 * A join from a PostgreSQL table to a MariaDB table of another source on a `bigint` beyond 2^53:
 * the keys reach MariaDB as their exact digits (its `_in` list is a JSON parameter read as
 * BIGINT) and its DECIMAL values come back digit for digit, with and without
 * --stringify-numeric-types. Answers are checked as raw text.
 */
import { expect } from 'chai';
import { createConnection, type Connection } from 'mysql2/promise';
import { randomBytes } from 'node:crypto';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';

const ADMIN = { 'x-svc-admin-secret': 'secret' };
const MARIA = { host: process.env['SVC_TEST_MARIADB_HOST'] ?? '127.0.0.1', port: Number(process.env['SVC_TEST_MARIADB_PORT'] ?? 3306), user: 'root' };
const BIG = '9007199254740993';
const NEIGHBOUR = '9007199254740992';
const AMOUNT = '123456789012345678901.25';

describe('lossless big numbers across a join to a MariaDB source', function () {
  this.timeout(60_000);
  const database = `gaps_lossless_${randomBytes(4).toString('hex')}`;
  let maria: Connection;
  let pg: TestDatabase;

  before(async () => {
    maria = await createConnection(MARIA);
    await maria.query(`CREATE DATABASE ${database}`);
    await maria.query(`CREATE TABLE ${database}.ledger (id INT PRIMARY KEY, account_id BIGINT NOT NULL, amount DECIMAL(30,2) NOT NULL)`);
    await maria.query(`INSERT INTO ${database}.ledger VALUES (1, ${BIG}, ${AMOUNT}), (2, ${NEIGHBOUR}, 5)`);
    pg = await createTestDatabase('lossless_maria', `CREATE TABLE accounts (id bigint PRIMARY KEY); INSERT INTO accounts VALUES (${BIG}), (${NEIGHBOUR});`);
  });
  after(async () => {
    await pg?.drop();
    await maria?.query(`DROP DATABASE IF EXISTS ${database}`);
    await maria?.end();
  });

  for (const stringify of [false, true]) {
    it(`keeps keys and DECIMALs exact${stringify ? ' with --stringify-numeric-types' : ''}`, async () => {
      const engine: Engine = await startTestEngine({ databaseUrl: pg.url, adminSecret: 'secret', unauthorizedRole: undefined, stringifyNumericTypes: stringify });
      try {
        if (!stringify) {
          for (const step of [
            { type: 'pg_track_table', args: { table: 'accounts' } },
            { type: 'maria_add_source', args: { name: 'maria', configuration: { connection_info: { ...MARIA, database, pool_settings: { max_connections: 2 } } } } },
            { type: 'maria_track_table', args: { source: 'maria', table: { schema: database, name: 'ledger' }, configuration: { custom_name: 'ledger' } } },
            {
              type: 'pg_create_remote_relationship',
              args: { name: 'entries', table: 'accounts', definition: { to_source: { relationship_type: 'array', source: 'maria', table: { schema: database, name: 'ledger' }, field_mapping: { id: 'account_id' } } } },
            },
          ]) {
            const r = await metadata(engine, step, ADMIN);
            expect(r.status, JSON.stringify(r.body)).to.equal(200);
          }
        }
        const res = await fetch(`${engine.url}/v1/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...ADMIN },
          body: JSON.stringify({ query: '{ accounts(order_by: {id: desc}) { id entries { id account_id amount } } }' }),
        });
        const num = (digits: string): string => (stringify ? `"${digits}"` : digits);
        // A short DECIMAL (5.00) is a plain JSON number once the answer is parsed for the join (5):
        // only numbers a double may not hold exactly are kept as their text (docs/api.md).
        const short = stringify ? '"5.00"' : '5';
        // MariaDB spaces its JSON; the values are what is checked.
        const text = (await res.text()).replace(/\s/g, '');
        expect(text).to.equal(
          `{"data":{"accounts":[{"id":${num(BIG)},"entries":[{"id":1,"account_id":${num(BIG)},"amount":${num(AMOUNT)}}]},{"id":${num(NEIGHBOUR)},"entries":[{"id":2,"account_id":${num(NEIGHBOUR)},"amount":${short}}]}]}}`,
        );
      } finally {
        await engine.close();
      }
    });
  }
});
