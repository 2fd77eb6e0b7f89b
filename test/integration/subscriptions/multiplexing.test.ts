import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { ADMIN, Received, startSubsFixture, transportClient, waitFor, type SubsFixture } from './fixture.js';

const SUBSCRIBERS = Number(process.env.SUBS_N ?? 1000);
const CONNECTIONS = 4;
const INTERVAL = 150;

interface Row {
  data: { article: Array<{ id: number; title: string }> };
}

describe('subscriptions: multiplexing (integration)', function () {
  this.timeout(120_000);

  for (const tracking of [true, false]) {
    describe(`change tracking ${tracking ? 'on' : 'off'}`, () => {
      let f: SubsFixture;
      let clients: Client[] = [];
      const received: Array<Received<Row>> = [];

      before(async () => {
        f = await startSubsFixture(
          `mux_${tracking ? 'on' : 'off'}`,
          {
            liveQueriesMultiplexedRefetchInterval: INTERVAL,
            liveQueriesMultiplexedBatchSize: SUBSCRIBERS,
            liveQueriesChangeTracking: tracking,
          },
          `INSERT INTO article (title, author_id) SELECT 'bulk ' || g, 1 + g % 3 FROM generate_series(1, ${SUBSCRIBERS}) g;`,
        );
        clients = Array.from({ length: CONNECTIONS }, () => transportClient(f.wsUrl, ADMIN));
        // Every subscriber its own variable value: 1000 cohorts of one statement shape.
        for (let i = 0; i < SUBSCRIBERS; i++) {
          const r = new Received<Row>();
          received.push(r);
          clients[i % CONNECTIONS]!.subscribe(
            { query: 'subscription ($id: Int!) { article(where: {id: {_eq: $id}}) { id title } }', variables: { id: i + 1 } },
            r.sink,
          );
        }
        await waitFor(() => (received.every((r) => r.values.length === 1) ? true : undefined), 60_000, 'every first result');
      });
      after(async () => {
        await Promise.all(clients.map((c) => c.dispose()));
        await f?.close();
      });

      it('gives each subscriber its own first result', () => {
        received.forEach((r, i) => expect(r.values[0]!.data.article).to.deep.equal([{ id: i + 1, title: i < 4 ? ['a1', 'a2', 'b1', 'c1'][i]! : `bulk ${i - 3}` }]));
        const stats = f.manager().stats();
        expect(stats.pollers).to.equal(1);
        expect(stats.cohorts).to.equal(SUBSCRIBERS);
        expect(stats.subscribers).to.equal(SUBSCRIBERS);
      });

      it('serves all 1,000 cohorts with ONE statement per refetch, and sends only the changed one', async () => {
        const before = f.manager().stats();
        // Three writes, each awaited by its subscriber: at least three refetches.
        for (let n = 1; n <= 3; n++) {
          await f.db.sql(`UPDATE article SET title = $1 WHERE id = 7`, [`changed ${n}`]);
          await received[6]!.nth(n);
        }
        const after = f.manager().stats();
        const polls = after.polls - before.polls;
        expect(polls).to.be.at.least(3);
        expect(after.statements - before.statements).to.equal(polls);
        expect(received[6]!.values.slice(1).map((v) => v.data.article)).to.deep.equal(
          [1, 2, 3].map((n) => [{ id: 7, title: `changed ${n}` }]),
        );
        received.forEach((r, i) => {
          if (i !== 6) expect(r.values, `subscriber ${i + 1}`).to.have.length(1);
        });
        expect(after.messages - before.messages).to.equal(3);
      });

      it(tracking ? 'does not refetch after a write to another table' : 'keeps polling without change tracking', async () => {
        await new Promise((r) => setTimeout(r, INTERVAL * 2));
        const before = f.manager().stats();
        await f.db.sql(`INSERT INTO other (v) VALUES (1)`);
        await new Promise((r) => setTimeout(r, INTERVAL * 5));
        const after = f.manager().stats();
        if (tracking) {
          expect(after.statements - before.statements).to.equal(0);
          expect(after.polls - before.polls).to.equal(0);
        } else {
          expect(after.polls - before.polls).to.be.greaterThan(1);
          expect(after.statements - before.statements).to.equal(after.polls - before.polls);
        }
        expect(after.messages).to.equal(before.messages);
      });
    });
  }
});
