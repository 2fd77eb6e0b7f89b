/**
 * CI smoke run of bench:remote-join (`--quick`): both ways answer, the figures are printed. No
 * timing is asserted: a shared CI box says nothing about speed (docs/performance.md).
 */
import { expect } from 'chai';
import { runRemoteJoinBench } from './remote-join.js';

describe('bench:remote-join --quick (smoke)', function () {
  this.timeout(120_000);
  it('measures a remote join against the two calls made by hand', async () => {
    const r = await runRemoteJoinBench(10, () => undefined);
    expect(r.iterations).to.equal(10);
    expect(r.joinedMs).to.be.above(0);
    expect(r.byHandMs).to.be.above(0);
  });
});
