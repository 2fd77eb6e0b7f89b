/**
 * Big numbers across joins: a `bigint` join key beyond 2^53 (9007199254740993, whose neighbour
 * 9007199254740992 is what a double would make of it) and `numeric` values with more digits than
 * a double holds, through a join to another PostgreSQL source, a join to a remote schema, and a
 * remote type joined back to a table. Answers are checked as raw text: parsing them in the test
 * with JSON.parse would itself round the digits. Each check runs with and without
 * --stringify-numeric-types.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql as runGraphQL, Kind, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';

const ADMIN = { 'x-svc-admin-secret': 'secret' };
const BIG = '9007199254740993';
const NEIGHBOUR = '9007199254740992';
const BALANCE = '12345678901234567.89';
const AMOUNT = '98765432109876543.21';

const ACCOUNTS_SQL = `
CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric NOT NULL);
INSERT INTO accounts VALUES (${BIG}, 'big', ${BALANCE}), (${NEIGHBOUR}, 'neighbour', 1), (7, 'small', 2.5);
`;
const LEDGER_SQL = `
CREATE TABLE ledger (id int PRIMARY KEY, account_id bigint NOT NULL, amount numeric NOT NULL);
INSERT INTO ledger VALUES (1, ${BIG}, ${AMOUNT}), (2, ${NEIGHBOUR}, 5), (3, 7, 1.25), (4, ${BIG}, 1);
`;

/**
 * A remote schema server that never parses numbers: introspection goes through graphql-js, and
 * a `profile(accountId: N)` selection is answered from N's digits as written in the query.
 */
interface ProfilesServer {
  url: string;
  bodies: string[];
  stop(): Promise<void>;
}

async function profilesServer(): Promise<ProfilesServer> {
  const schema = buildSchema('scalar BigInt type Profile { accountId: BigInt! score: BigInt! } type Query { profile(accountId: BigInt!): Profile }');
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        res.setHeader('content-type', 'application/json');
        if (text.includes('__schema')) {
          const { query } = JSON.parse(text) as { query: string };
          res.end(JSON.stringify(await runGraphQL({ schema, source: query })));
          return;
        }
        bodies.push(text);
        // graphql-js keeps literals as text in the AST: the digits are read, never parsed.
        const { query } = JSON.parse(text) as { query: string };
        const operation = parse(query).definitions[0] as OperationDefinitionNode;
        const parts: string[] = [];
        for (const sel of operation.selectionSet.selections as FieldNode[]) {
          const arg = sel.arguments?.find((a) => a.name.value === 'accountId')?.value;
          const digits = arg && (arg.kind === Kind.INT || arg.kind === Kind.STRING) ? arg.value : '0';
          const fields = (sel.selectionSet?.selections ?? []) as FieldNode[];
          const values: Record<string, string> = { accountId: digits, score: (BigInt(digits) * 10n + 7n).toString(), __typename: '"Profile"' };
          const body = fields.map((f) => `"${f.alias?.value ?? f.name.value}":${values[f.name.value] ?? 'null'}`).join(',');
          parts.push(`"${sel.alias?.value ?? sel.name.value}":{${body}}`);
        }
        res.end(`{"data":{${parts.join(',')}}}`);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    bodies,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Posts a query and returns the answer's raw text. */
async function rawGraphQL(engine: Engine, query: string): Promise<string> {
  const res = await fetch(`${engine.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...ADMIN }, body: JSON.stringify({ query }) });
  return res.text();
}

describe('lossless big numbers across remote and cross-source joins', function () {
  this.timeout(60_000);
  let accounts: TestDatabase;
  let ledger: TestDatabase;
  let profiles: ProfilesServer;

  const setUp = async (engine: Engine): Promise<void> => {
    const steps: unknown[] = [
      { type: 'pg_track_table', args: { table: 'accounts' } },
      { type: 'pg_add_source', args: { name: 'ledger', configuration: { connection_info: { database_url: { from_env: 'LEDGER_URL' }, pool_settings: { max_connections: 2 } } } } },
      { type: 'pg_track_table', args: { source: 'ledger', table: 'ledger' } },
      { type: 'add_remote_schema', args: { name: 'profiles', definition: { url: profiles.url } } },
      {
        type: 'pg_create_remote_relationship',
        args: { name: 'entries', table: 'accounts', definition: { to_source: { relationship_type: 'array', source: 'ledger', table: 'ledger', field_mapping: { id: 'account_id' } } } },
      },
      {
        type: 'pg_create_remote_relationship',
        args: { name: 'account', source: 'ledger', table: 'ledger', definition: { to_source: { relationship_type: 'object', source: 'default', table: 'accounts', field_mapping: { account_id: 'id' } } } },
      },
      {
        type: 'pg_create_remote_relationship',
        args: { name: 'profile', table: 'accounts', definition: { to_remote_schema: { remote_schema: 'profiles', lhs_fields: ['id'], remote_field: { profile: { arguments: { accountId: '$id' } } } } } },
      },
      {
        type: 'create_remote_schema_remote_relationship',
        args: { remote_schema: 'profiles', type_name: 'Profile', name: 'account', definition: { to_source: { relationship_type: 'object', source: 'default', table: 'accounts', field_mapping: { accountId: 'id' } } } },
      },
    ];
    for (const step of steps) {
      const r = await metadata(engine, step, ADMIN);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    }
  };

  before(async () => {
    accounts = await createTestDatabase('lossless_accounts', ACCOUNTS_SQL);
    ledger = await createTestDatabase('lossless_ledger', LEDGER_SQL);
    profiles = await profilesServer();
  });
  after(async () => {
    await profiles?.stop();
    await ledger?.drop();
    await accounts?.drop();
  });

  for (const stringify of [false, true]) {
    describe(stringify ? 'with --stringify-numeric-types' : 'numbers as JSON numbers', () => {
      let engine: Engine;
      // How a bigint or numeric value is written in answers under this setting.
      const num = (digits: string): string => (stringify ? `"${digits}"` : digits);

      before(async () => {
        engine = await startTestEngine(
          { databaseUrl: accounts.url, adminSecret: 'secret', unauthorizedRole: undefined, stringifyNumericTypes: stringify, pgConnections: 2 },
          { env: { ...process.env, LEDGER_URL: ledger.url } },
        );
        // The metadata is kept in the accounts database: the second engine finds it there.
        if (!stringify) await setUp(engine);
      });
      after(async () => {
        await engine?.close();
      });

      it('joins to another source on a bigint beyond 2^53, keeping the joined numerics exact', async () => {
        const text = await rawGraphQL(
          engine,
          `{ accounts(order_by: {id: asc}) { id balance entries(order_by: {id: asc}) { id account_id amount } } }`,
        );
        expect(text).to.equal(
          `{"data":{"accounts":[` +
            `{"id":${num('7')},"balance":${num('2.5')},"entries":[{"id":3,"account_id":${num('7')},"amount":${num('1.25')}}]},` +
            `{"id":${num(NEIGHBOUR)},"balance":${num('1')},"entries":[{"id":2,"account_id":${num(NEIGHBOUR)},"amount":${num('5')}}]},` +
            `{"id":${num(BIG)},"balance":${num(BALANCE)},"entries":[{"id":1,"account_id":${num(BIG)},"amount":${num(AMOUNT)}},{"id":4,"account_id":${num(BIG)},"amount":${num('1')}}]}]}}`,
        );
      });

      it('aggregates the joined rows of a big key exactly', async () => {
        const text = await rawGraphQL(engine, `{ accounts(where: {id: {_eq: "${BIG}"}}) { entries_aggregate { aggregate { count sum { amount } } } } }`);
        expect(text).to.equal(`{"data":{"accounts":[{"entries_aggregate":{"aggregate":{"count":2,"sum":{"amount":${num('98765432109876544.21')}}}}}]}}`);
      });

      it('joins back from the second source by the same key (object relationship)', async () => {
        const text = await rawGraphQL(engine, `{ ledger(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id account { id owner balance } } }`);
        expect(text).to.equal(
          `{"data":{"ledger":[{"id":1,"account":{"id":${num(BIG)},"owner":"big","balance":${num(BALANCE)}}},{"id":2,"account":{"id":${num(NEIGHBOUR)},"owner":"neighbour","balance":${num('1')}}}]}}`,
        );
      });

      it('sends the exact key to a remote schema and keeps its big answer', async () => {
        profiles.bodies.length = 0;
        const text = await rawGraphQL(engine, `{ accounts(where: {owner: {_in: ["big", "neighbour"]}}, order_by: {id: desc}) { owner profile { accountId score } } }`);
        expect(text).to.equal(
          `{"data":{"accounts":[{"owner":"big","profile":{"accountId":${BIG},"score":${BIG}7}},{"owner":"neighbour","profile":{"accountId":${NEIGHBOUR},"score":${NEIGHBOUR}7}}]}}`,
        );
        expect(profiles.bodies).to.have.length(1);
        // Two distinct keys, two aliased fields: the neighbour was not merged into the big one.
        const sent = stringify ? [`accountId: \\"${BIG}\\"`, `accountId: \\"${NEIGHBOUR}\\"`] : [`accountId: ${BIG}`, `accountId: ${NEIGHBOUR}`];
        for (const s of sent) expect(profiles.bodies[0]).to.include(s);
      });

      it('joins a remote answer back to a table on its big key', async () => {
        const text = await rawGraphQL(engine, `{ profile(accountId: ${BIG}) { score account { owner balance } } }`);
        expect(text).to.equal(`{"data":{"profile":{"score":${BIG}7,"account":{"owner":"big","balance":${num(BALANCE)}}}}}`);
      });
    });
  }
});
