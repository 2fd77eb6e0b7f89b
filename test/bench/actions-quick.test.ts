/**
 * CI smoke run of the action round-trip benchmark (`--quick`): every variant answers correctly.
 * Timings on a shared box mean nothing, so none is asserted; docs/performance.md takes its
 * figures from a full run (`npm run bench:actions`) on a quiet machine.
 */
import { expect } from 'chai';
import { formatActionsBench, runActionsBench } from './actions.js';

describe('bench actions --quick (smoke)', function () {
  this.timeout(120_000);

  it('calls the handler directly and through actions, every answer right', async () => {
    const r = await runActionsBench('quick');
    expect(r.wrongAnswers).to.equal(0);
    expect(r.direct.requests).to.equal(50);
    expect(r.action.requests).to.equal(50);
    expect(r.actionWithRelationship.meanMs).to.be.greaterThan(0);
    expect(formatActionsBench(r)).to.include('action round-trip overhead');
  });
});
