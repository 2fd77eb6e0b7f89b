/**
 * Several engines sharing a metadata database that has no rate-limit table yet each create it on
 * their first reservation. Unserialised, concurrent `CREATE TABLE IF NOT EXISTS` statements fail
 * for the losers (the relation, its row type or a catalog key already exists); the store creates
 * it under an advisory lock, as the other svc_catalog stores do, so no first request fails.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PgRateStore } from '../../../plugins/limits/rate/pg-store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { freshKey } from './rate-helpers.js';

const STORES = 16;
const ROUNDS = 30;

describe('rate limits: the metadata-database store created by engines at once', function () {
  this.timeout(120_000);
  let db: TestDatabase | undefined;
  before(async () => {
    db = await createTestDatabase('limits_rate_create', 'CREATE SCHEMA svc_catalog');
  });
  after(() => db?.drop());

  it(`grants every first reservation of ${STORES} stores starting together, over ${ROUNDS} fresh tables`, async () => {
    const admin = new pg.Client({ connectionString: db!.url });
    await admin.connect();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await admin.query('DROP TABLE IF EXISTS svc_catalog.svc_rate_lease');
        const stores = Array.from({ length: STORES }, () => new PgRateStore(db!.url));
        try {
          const key = freshKey();
          const grants = await Promise.allSettled(stores.map((s) => s.reserve([{ key, want: 1, max: 1000 }], 60_000)));
          const failed = grants.flatMap((g) => (g.status === 'rejected' ? [String(g.reason)] : []));
          expect(failed, `round ${round}`).to.deep.equal([]);
          const granted = grants.map((g) => (g.status === 'fulfilled' ? g.value[0]!.granted : 0));
          expect(granted, `round ${round}`).to.deep.equal(Array(STORES).fill(1));
        } finally {
          await Promise.all(stores.map((s) => s.close()));
        }
      }
    } finally {
      await admin.end();
    }
  });
});
