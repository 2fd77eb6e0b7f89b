/**
 * CI smoke run of bench:mariadb: the dataset is made, the engine's and the floor's answers to
 * Q1-Q3 are compared (the run throws when they differ), and each side serves a second of load
 * without an error. No timing is asserted: a shared CI box says nothing about speed.
 */
import { expect } from 'chai';
import { runMariaBench } from './mariadb.js';

describe('bench:mariadb (smoke)', function () {
  this.timeout(180_000);
  it('runs Q1-Q3 against the MariaDB kind and the mysql2 floor with equal answers', async () => {
    const rows = await runMariaBench({ seconds: 1, connections: 4, warmup: 0, log: () => undefined });
    expect(rows.map((r) => r.id)).to.deep.equal(['Q1', 'Q2', 'Q3']);
    for (const r of rows) {
      expect(r.engineRps, r.id).to.be.above(0);
      expect(r.floorRps, r.id).to.be.above(0);
    }
  });
});
