/**
 * The runners' claim-and-deliver loop (core/webhooks/delivery-loop.ts) with in-process work: a
 * queue of due items that a round claims from, and deliveries that finish when the test says so.
 * What it must keep: never more deliveries than slots, a full round followed by another only once
 * `refillAt` slots are free, a pause of the fetch interval after a round that was not full, and a
 * stop that waits for deliveries within the shutdown timeout and aborts (and reports) the rest.
 */
import { expect } from 'chai';
import { DeliveryLoop, type DeliveryLoopOptions } from '../../../core/webhooks/delivery-loop.js';

interface Delivery {
  id: string;
  finish(): void;
  aborted: boolean;
}

function harness(options: DeliveryLoopOptions, batchSize: number, due: string[]) {
  const queue = [...due];
  const running = new Map<string, Delivery>();
  const claims: number[] = [];
  const failures: unknown[] = [];
  let maxInFlight = 0;
  let failNext = false;
  const loop: DeliveryLoop = new DeliveryLoop(
    {
      async round() {
        if (failNext) {
          failNext = false;
          throw new Error('claim failed');
        }
        const limit = Math.min(batchSize, loop.free);
        if (limit <= 0) return true;
        const claimed = queue.splice(0, limit);
        claims.push(claimed.length);
        for (const id of claimed) {
          const controller = new AbortController();
          let finish = (): void => undefined;
          const delivery: Delivery = { id, finish: () => finish(), aborted: false };
          const done = new Promise<void>((resolve) => {
            finish = resolve;
            controller.signal.addEventListener('abort', () => {
              delivery.aborted = true;
              resolve();
            });
          }).then(() => {
            running.delete(id);
          });
          running.set(id, delivery);
          maxInFlight = Math.max(maxInFlight, running.size);
          loop.track(id, controller, done);
        }
        return claimed.length === limit;
      },
      roundFailed: (e) => failures.push(e),
    },
    options,
  );
  return {
    loop,
    queue,
    running,
    claims,
    failures,
    maxInFlight: () => maxInFlight,
    failNextRound: () => {
      failNext = true;
    },
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await tick(5);
  }
}

describe('webhooks: the delivery loop', () => {
  it('never delivers more than the slots, and claims again only once refillAt slots are free', async () => {
    const h = harness({ poolSize: 4, fetchIntervalMs: 10_000, shutdownTimeoutMs: 1000, refillAt: 2 }, 4, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    h.loop.start();
    await until(() => h.running.size === 4);
    expect(h.claims).to.deep.equal([4]);
    // One slot free is not enough for a new round (refillAt 2), and the interval is long.
    h.running.get('a')!.finish();
    await tick(50);
    expect(h.claims).to.deep.equal([4]);
    h.running.get('b')!.finish();
    await until(() => h.claims.length === 2);
    expect(h.claims).to.deep.equal([4, 2]);
    expect(h.maxInFlight()).to.equal(4);
    for (const d of [...h.running.values()]) d.finish();
    await until(() => h.claims.length === 3);
    // The last round claimed fewer than it could: the loop pauses for the fetch interval.
    expect(h.claims).to.deep.equal([4, 2, 1]);
    h.running.get('g')!.finish();
    await until(() => h.running.size === 0);
    expect(await h.loop.stop()).to.deep.equal([]);
  });

  it('pauses the fetch interval after a round that was not full, and after a failing one', async () => {
    const h = harness({ poolSize: 10, fetchIntervalMs: 60, shutdownTimeoutMs: 1000 }, 5, []);
    h.failNextRound();
    h.loop.start();
    await until(() => h.failures.length === 1);
    const started = Date.now();
    await until(() => h.claims.length === 1);
    expect(Date.now() - started).to.be.greaterThanOrEqual(40);
    h.queue.push('x');
    await until(() => h.running.has('x'), 500);
    expect(h.claims).to.deep.equal([0, 1]);
    h.running.get('x')!.finish();
    await h.loop.stop();
  });

  it('stops: deliveries that finish within the shutdown timeout are not aborted, the rest are, and their ids come back', async () => {
    const h = harness({ poolSize: 3, fetchIntervalMs: 10, shutdownTimeoutMs: 150 }, 3, ['p', 'q', 'r']);
    h.loop.start();
    await until(() => h.running.size === 3);
    const p = h.running.get('p')!;
    const q = h.running.get('q')!;
    setTimeout(() => p.finish(), 30);
    const started = Date.now();
    const aborted = await h.loop.stop();
    expect(Date.now() - started).to.be.within(130, 1000);
    expect(aborted.sort()).to.deep.equal(['q', 'r']);
    expect(p.aborted).to.equal(false);
    expect(q.aborted).to.equal(true);
    expect(h.running.size).to.equal(0);
    expect(h.loop.running).to.equal(false);
    // Nothing is claimed after the stop.
    h.queue.push('late');
    await tick(40);
    expect(h.queue).to.deep.equal(['late']);
  });
});
