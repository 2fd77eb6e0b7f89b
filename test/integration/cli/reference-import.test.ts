import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { graphql, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';
import type { Engine } from '../../../core/engine.js';
import { cli } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/reference-project', import.meta.url));
const SECRET = 'import-secret';
const JWT_KEY = 'a-very-long-shared-signing-key-of-32-bytes+';

/** The claims_map JSON the import prints. */
function printedClaimsMap(out: string): Record<string, unknown> {
  const start = out.indexOf('{\n  "claims_map"');
  const end = out.indexOf('\n}\n', start);
  return JSON.parse(out.slice(start, end + 2)).claims_map;
}

describe('moving a reference-engine project over (metadata import --from-reference)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let engine: Engine;
  let sink: WebhookSink;
  let work: string;
  let project: string;
  let importOut: string;

  before(async () => {
    db = await createTestDatabase('refimport');
    sink = await startWebhookSink();
    work = mkdtempSync(join(tmpdir(), 'svc-import-'));
    project = join(work, 'app');
  });

  after(async () => {
    await engine?.close();
    await sink?.close();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('converts the project folder and prints the claims_map', async () => {
    expect((await cli(['init', project], {})).code).to.equal(0);
    const r = await cli(['metadata', 'import', '--from-reference', FIXTURE, '--project', project], {});
    expect(r.code, r.err).to.equal(0);
    importOut = r.out;
    expect(r.out).to.include('environment variables the metadata reads: SVC_GRAPHQL_DATABASE_URL, SVC_GRAPHQL_NOTES_WEBHOOK, SVC_GRAPHQL_NOTES_WEBHOOK_TOKEN, SVC_GRAPHQL_READ_REPLICA_URL');
    expect(r.out).to.include('copied migrations/');
    expect(printedClaimsMap(r.out)).to.deep.equal({
      'x-svc-allowed-roles': { path: "$['https://hasura.io/jwt/claims']['x-hasura-allowed-roles']" },
      'x-svc-default-role': { path: "$['https://hasura.io/jwt/claims']['x-hasura-default-role']" },
      'x-svc-user-id': { path: "$['https://hasura.io/jwt/claims']['x-hasura-user-id']" },
    });
    const note = readFileSync(join(project, 'metadata', 'databases', 'default', 'tables', 'public_note.yaml'), 'utf8');
    expect(note).to.include('_eq: X-Svc-User-Id');
    expect(note).to.include('owner_id: x-svc-User-Id');
    expect(note).to.include('name: X-Svc-From-Engine');
    expect(note).to.include('value_from_env: SVC_GRAPHQL_NOTES_WEBHOOK_TOKEN');
    expect(note).to.include('webhook_from_env: SVC_GRAPHQL_NOTES_WEBHOOK');
    expect(note).not.to.match(/hasura/i);
    const dbs = readFileSync(join(project, 'metadata', 'databases', 'databases.yaml'), 'utf8');
    expect(dbs).to.include('from_env: SVC_GRAPHQL_READ_REPLICA_URL');
  });

  it('the converted project runs on a fresh engine: migrations, seeds, metadata, tokens, event headers', async () => {
    engine = await startTestEngine(
      {
        databaseUrl: db.url,
        adminSecret: SECRET,
        jwtSecret: { type: 'HS256', key: JWT_KEY, claims_map: printedClaimsMap(importOut) },
        eventsFetchInterval: 50,
      },
      { env: { ...process.env, SVC_GRAPHQL_READ_REPLICA_URL: db.url, SVC_GRAPHQL_NOTES_WEBHOOK: sink.url, SVC_GRAPHQL_NOTES_WEBHOOK_TOKEN: 'Bearer hook-token' } },
    );
    const env = { SVC_GRAPHQL_ENDPOINT: engine.url, SVC_GRAPHQL_ADMIN_SECRET: SECRET };
    for (const args of [['migrate', 'apply'], ['seed', 'apply'], ['metadata', 'apply'], ['metadata', 'inconsistency', 'list']]) {
      const r = await cli([...args, '--project', project], env);
      expect(r.code, `${args.join(' ')}: ${r.err}`).to.equal(0);
      if (args[1] === 'inconsistency') expect(r.out).to.equal('metadata is consistent\n');
    }

    // A token minted for the reference engine, claims in its namespace.
    const token = await new SignJWT({
      'https://hasura.io/jwt/claims': { 'x-hasura-allowed-roles': ['user'], 'x-hasura-default-role': 'user', 'x-hasura-user-id': '1' },
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_KEY));
    const auth = { authorization: `Bearer ${token}` };
    const q = await graphql(engine, '{ profile { id name notes { body } } }', undefined, auth);
    expect(q.body).to.deep.equal({ data: { profile: [{ id: 1, name: 'Ada', notes: [{ body: "ada's note" }] }] } });

    const m = await graphql(engine, 'mutation { insert_note_one(object: {body: "new"}) { owner_id body } }', undefined, auth);
    expect(m.body).to.deep.equal({ data: { insert_note_one: { owner_id: 1, body: 'new' } } });
    await sink.waitFor((r) => r.some((x) => x.json?.event?.data?.new?.body === 'new'), 10_000, 'the note event');
    const delivered = sink.requests.find((x) => x.json?.event?.data?.new?.body === 'new')!;
    expect(delivered.headers['x-svc-from-engine']).to.equal('true');
    expect(delivered.headers['authorization']).to.equal('Bearer hook-token');
    expect(delivered.json.event.session_variables).to.include({ 'x-svc-user-id': '1', 'x-svc-role': 'user' });
  });

  it('also converts an export JSON (export_metadata version 2)', async () => {
    const exportFile = join(work, 'export.json');
    writeFileSync(
      exportFile,
      JSON.stringify({
        resource_version: 7,
        metadata: {
          version: 3,
          sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'profile' }, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-HASURA-USER-ID' } } } }] }], configuration: { connection_info: { database_url: { from_env: 'HASURA_GRAPHQL_DATABASE_URL' } } } }],
        },
      }),
    );
    const other = join(work, 'other');
    await cli(['init', other], {});
    const r = await cli(['metadata', 'import', '--from-reference', exportFile, '--project', other], {});
    expect(r.code, r.err).to.equal(0);
    const profile = readFileSync(join(other, 'metadata', 'databases', 'default', 'tables', 'public_profile.yaml'), 'utf8');
    expect(profile).to.include('_eq: X-SVC-USER-ID');
  });

  it('refuses what it cannot read, with a clear error', async () => {
    const r = await cli(['metadata', 'import', '--from-reference', join(work, 'nope'), '--project', project], {});
    expect(r.code).to.equal(1);
    expect(r.err).to.match(/^error: .*nope does not exist/);
  });
});
