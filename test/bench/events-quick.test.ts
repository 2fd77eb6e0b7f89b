/**
 * CI smoke run of the event trigger benchmark (`--quick`): both scenarios end to end on a small
 * scale. Every event must be delivered; timings on a shared box mean nothing, so none is asserted.
 */
import { expect } from 'chai';
import { formatEventsBench, runEventsBench } from './events.js';

describe('bench events --quick (smoke)', function () {
  this.timeout(180_000);

  it('delivers every event of the burst and measures inserts with and without capture', async () => {
    const r = await runEventsBench('quick', { events: 500, inserts: 200 });
    expect(r.webhookCalls).to.be.at.least(r.events);
    expect(r.eventsPerSecond).to.be.greaterThan(0);
    expect(r.plainInsertMs).to.be.greaterThan(0);
    expect(r.capturedInsertMs).to.be.greaterThan(0);
    expect(formatEventsBench(r)).to.include('capture overhead');
  });
});
