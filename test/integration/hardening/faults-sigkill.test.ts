/**
 * SIGKILL of the engine process in the middle of writes, then a restart on the same database:
 * the metadata is the old or the new document, never a mix; a mutation's rows are all there or
 * none; on the embedded database every acknowledged write survives and the data directory opens
 * without repair.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata } from '../../helpers/engine.js';
import { ADMIN, spawnKillableEngine as spawnEngine, trackItems, type KillableEngine as EngineProcess } from '../../helpers/hardening.js';

const ROUNDS = Number(process.env['FAULT_ROUNDS'] ?? 3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const randomMs = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

/** Fires requests back to back until the process is killed; returns what the acknowledged ones wrote. */
async function hammer<T>(engine: EngineProcess, send: (i: number) => Promise<T | undefined>, killAfterMs: number): Promise<T[]> {
  const acknowledged: T[] = [];
  let alive = true;
  const loops = Array.from({ length: 4 }, async (_, w) => {
    for (let i = w; alive; i += 4) {
      try {
        const ok = await send(i);
        if (ok !== undefined) acknowledged.push(ok);
      } catch {
        return; // the process is gone
      }
    }
  });
  // Kill mid-stream: after the first write was acknowledged (a loaded machine may be slow to start).
  const deadline = Date.now() + 30_000;
  while (acknowledged.length === 0 && Date.now() < deadline) await sleep(20);
  await sleep(killAfterMs);
  await engine.kill();
  alive = false;
  await Promise.all(loops);
  return acknowledged;
}

describe('faults: SIGKILL of the engine (integration, real processes)', function () {
  this.timeout(300_000);

  describe('on PostgreSQL', () => {
    let db: TestDatabase;
    let engine: EngineProcess | undefined;
    const env = (): Record<string, string> => ({ SVC_GRAPHQL_DATABASE_URL: db.url });

    before(async () => {
      db = await createTestDatabase('sigkill');
      engine = await spawnEngine(env());
      await trackItems(engine, db);
    });
    after(async () => {
      await engine?.kill();
      await db?.drop();
    });

    it('during replace_metadata: after restart the metadata is the old or the new, never a mix', async () => {
      const withPermissions = (await metadata(engine!, { type: 'export_metadata', args: {} }, ADMIN)).body;
      const withoutPermissions = JSON.parse(JSON.stringify(withPermissions));
      const item = withoutPermissions.sources[0].tables[0];
      for (const k of ['select_permissions', 'insert_permissions', 'update_permissions', 'delete_permissions']) delete item[k];
      const docs = [withPermissions, withoutPermissions];
      for (let round = 0; round < ROUNDS; round++) {
        await hammer(engine!, async (i) => {
          const res = await metadata(engine!, { type: 'replace_metadata', args: docs[i % 2] }, ADMIN);
          return res.status === 200 ? i : undefined;
        }, randomMs(50, 400));
        engine = await spawnEngine(env());
        const now = (await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN)).body;
        expect([JSON.stringify(withPermissions), JSON.stringify(withoutPermissions)]).to.include(JSON.stringify(now));
      }
      await metadata(engine!, { type: 'replace_metadata', args: withPermissions }, ADMIN);
    });

    it('during mutations: a mutation’s rows are all written or none, and every acknowledged one is there', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const tag = `r${round}-${Date.now()}`;
        const acknowledged = await hammer(engine!, async (i) => {
          // Three rows in one mutation: two root fields and a nested insert, one transaction.
          const query = `mutation {
            a: insert_item(objects: [{name: "${tag}-${i}", owner_id: 1}, {name: "${tag}-${i}", owner_id: 2}]) { affected_rows }
            b: insert_item_one(object: {name: "${tag}-${i}", owner_id: 3, parent_id: 1}) { id }
          }`;
          const res = await call(engine!, '/v1/graphql', { query }, ADMIN);
          return res.body?.data ? `${tag}-${i}` : undefined;
        }, randomMs(100, 600));
        expect(acknowledged.length, 'some mutations were acknowledged before the kill').to.be.greaterThan(0);
        const groups = await db.sql(`SELECT name, count(*)::int AS n FROM item WHERE name LIKE $1 GROUP BY name`, [`${tag}-%`]);
        const partial = groups.rows.filter((r) => r.n !== 3);
        expect(partial, 'no half-written mutation').to.deep.equal([]);
        const written = new Set(groups.rows.map((r) => r.name));
        expect(acknowledged.filter((n) => !written.has(n)), 'acknowledged but missing').to.deep.equal([]);
        engine = await spawnEngine(env());
      }
    });
  });

  describe('on the embedded database', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-sigkill-'));
    let engine: EngineProcess | undefined;
    const env = { SVC_GRAPHQL_DATA_DIR: dataDir };

    after(async () => {
      await engine?.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps every acknowledged write and opens the data directory without repair', async () => {
      engine = await spawnEngine(env);
      const setup = await call(
        engine,
        '/v2/query',
        { type: 'run_sql', args: { sql: 'CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)' } },
        ADMIN,
      );
      expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
      expect((await metadata(engine, { type: 'pg_track_table', args: { table: 'note' } }, ADMIN)).status).to.equal(200);
      const all: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const acknowledged = await hammer(engine!, async (i) => {
          const body = `n${round}-${i}`;
          const res = await call(engine!, '/v1/graphql', { query: `mutation { insert_note_one(object: {body: "${body}"}) { id } }` }, ADMIN);
          return res.body?.data ? body : undefined;
        }, randomMs(300, 900));
        all.push(...acknowledged);
        engine = await spawnEngine(env);
        const res = await call(engine, '/v1/graphql', { query: '{ note { body } }' }, ADMIN);
        const present = new Set((res.body.data.note as Array<{ body: string }>).map((n) => n.body));
        const lost = all.filter((b) => !present.has(b));
        expect(lost, `${lost.length} of ${all.length} acknowledged writes lost`).to.deep.equal([]);
      }
      expect(all.length).to.be.greaterThan(0);
    });
  });
});
