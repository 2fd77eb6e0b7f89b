import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { ADMIN, Received, startSubsFixture, transportClient, waitFor, type SubsFixture } from './fixture.js';

type Batch = { data: { task_stream: Array<{ id: number; priority: number }> } };
const priorities = (b: Batch): number[] => b.data.task_stream.map((t) => t.priority);

describe('subscriptions: streaming (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  let c: Client;
  before(async () => {
    f = await startSubsFixture(
      'stream',
      { streamingQueriesMultiplexedRefetchInterval: 100 },
      `CREATE TABLE task (id serial PRIMARY KEY, priority int NOT NULL, owner int NOT NULL DEFAULT 1);
       INSERT INTO task (priority) SELECT unnest(ARRAY[1,2,2,2,3,4,5]);`,
    );
    const res = await fetch(`${f.engine.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ADMIN },
      body: JSON.stringify({ type: 'pg_track_table', args: { table: 'task' } }),
    });
    expect(res.status).to.equal(200);
    c = transportClient(f.wsUrl, ADMIN);
  });
  after(async () => {
    await c?.dispose();
    await f?.close();
  });

  it('never splits equal cursor values: batch 2 over 1,2,2,2,3,4,5 gives [1,2,2,2], [3,4], [5]', async () => {
    const r = new Received<Batch>();
    c.subscribe({ query: 'subscription { task_stream(batch_size: 2, cursor: {initial_value: {priority: 0}}) { id priority } }' }, r.sink);
    await r.nth(2);
    await new Promise((res) => setTimeout(res, 400));
    expect(r.values.map(priorities)).to.deep.equal([[1, 2, 2, 2], [3, 4], [5]]);
  });

  it('streams new rows as they come, in descending order when asked, and sends no empty batch', async () => {
    const asc = new Received<Batch>();
    const query = 'subscription ($p: Int!, $o: cursor_ordering) { task_stream(batch_size: 10, cursor: {initial_value: {priority: $p}, ordering: $o}) { priority } }';
    c.subscribe({ query, variables: { p: 5 } }, asc.sink);
    const desc = new Received<Batch>();
    c.subscribe({ query, variables: { p: 3, o: 'DESC' } }, desc.sink);
    expect(priorities(await desc.nth(0))).to.deep.equal([2, 2, 2, 1]);
    await new Promise((res) => setTimeout(res, 400));
    expect(asc.values).to.have.length(0);
    await f.db.sql('INSERT INTO task (priority) VALUES (7), (6)');
    expect(priorities(await asc.nth(0))).to.deep.equal([6, 7]);
    expect(desc.values).to.have.length(1);
  });

  it('lets subscribers with one cursor share a cohort', async () => {
    const before = f.manager().stats().cohorts;
    const a = new Received<Batch>();
    const b = new Received<Batch>();
    const query = 'subscription { task_stream(batch_size: 100, cursor: {initial_value: {priority: 100}}) { priority } }';
    c.subscribe({ query }, a.sink);
    c.subscribe({ query }, b.sink);
    await waitFor(() => (f.manager().stats().cohorts === before + 1 ? true : undefined), 5000, 'one cohort');
    await f.db.sql('INSERT INTO task (priority) VALUES (101)');
    expect(await a.nth(0)).to.deep.equal(await b.nth(0));
  });

  it('refuses a cursor without a column, or with two', async () => {
    for (const [initial, code, message] of [
      ['{}', 'validation-failed', 'one streaming column field is expected'],
      ['{id: 1, priority: 1}', 'not-supported', 'multiple column cursors are not supported yet'],
    ] as const) {
      const r = new Received();
      c.subscribe({ query: `subscription { task_stream(batch_size: 1, cursor: {initial_value: ${initial}}) { id } }` }, r.sink);
      const errors = (await waitFor(() => r.errors[0])) as Array<{ message: string; extensions: { code: string } }>;
      expect(errors[0]!.extensions.code).to.equal(code);
      expect(errors[0]!.message).to.equal(message);
    }
  });
});
