import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { eventually } from '../../helpers/webhook-sink.js';
import { json, startActionFixture, type ActionFixture } from './fixture.js';
import { Received, transportClient } from '../subscriptions/fixture.js';

describe('actions: asynchronous', function () {
  this.timeout(30000);
  let f: ActionFixture;

  before(async () => {
    f = await startActionFixture('actions_async');
    await f.createAction('place_order', { kind: 'asynchronous', arguments: [{ name: 'name', type: 'String!' }], output_type: 'UserOutput' });
    await metadata(f.engine, { type: 'create_action_permission', args: { action: 'place_order', role: 'user' } });
    f.handlers.set('place_order', (req) =>
      req.json.input.name === 'bad' ? json({ message: 'refused', extensions: { code: 'no-way' } }, 400) : json({ id: 2, name: req.json.input.name }),
    );
  });
  after(async () => {
    await f.close();
  });

  const result = (id: string) => `{ place_order(id: "${id}") { __typename id created_at errors output { id name author { name } } } }`;

  it('answers an id at once and the result later, to the same session only', async () => {
    const started = await f.as('user', '5', `mutation { place_order(name: "pen") }`);
    const id = started.data.place_order as string;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const done = await eventually(async () => {
      const r = await f.as('user', '5', result(id));
      return r.data?.place_order?.output ? r : undefined;
    }, 10000, 'the async result');
    expect(done.data.place_order).to.deep.include({ __typename: 'place_order', id, errors: null, output: { id: 2, name: 'pen', author: { name: 'bob' } } });
    expect(Date.parse(done.data.place_order.created_at)).to.be.closeTo(Date.now(), 60000);
    const call = f.sink.requests.find((r) => r.json?.action?.name === 'place_order')!;
    expect(call.json).to.deep.equal({
      action: { name: 'place_order' },
      input: { name: 'pen' },
      session_variables: { 'x-svc-role': 'user', 'x-svc-user-id': '5' },
      request_query: null,
    });
    // Another user (other session variables) does not see it; admin does.
    expect(await f.as('user', '6', result(id))).to.deep.equal({ data: { place_order: null } });
    expect((await f.admin(result(id))).data.place_order.output.name).to.equal('pen');
  });

  it('stores a handler error, without internal detail for other roles', async () => {
    const started = await f.as('user', '5', `mutation { place_order(name: "bad") }`);
    const id = started.data.place_order as string;
    const done = await eventually(async () => {
      const r = await f.as('user', '5', result(id));
      return r.data?.place_order?.errors ? r : undefined;
    }, 10000, 'the async error');
    expect(done.data.place_order.output).to.equal(null);
    expect(done.data.place_order.errors).to.deep.equal({ error: 'refused', path: '$', code: 'no-way' });
  });

  it('answers the result through a subscription, polled until it is final, to the same session only', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    f.handlers.set('place_order', async (req) => {
      if (req.json.input.name === 'slow') await gate;
      return json({ id: 3, name: req.json.input.name });
    });
    const started = await f.as('user', '5', `mutation { place_order(name: "slow") }`);
    const id = started.data.place_order as string;
    const ws = f.engine.url.replace(/^http/, 'ws') + '/v1/graphql';
    const mine = transportClient(ws, { 'x-svc-role': 'user', 'x-svc-user-id': '5' });
    const other = transportClient(ws, { 'x-svc-role': 'user', 'x-svc-user-id': '6' });
    try {
      const query = `subscription { place_order(id: "${id}") { id errors output { name author { name } } } }`;
      const got = new Received<{ data: { place_order: { output: unknown } | null } }>();
      mine.subscribe({ query }, got.sink);
      const pending = await got.nth(0);
      expect(pending.data.place_order).to.deep.equal({ id, errors: null, output: null });
      expect(got.completed).to.equal(false);
      // Pushed every second while pending, with no change detection.
      await got.nth(1, 5000);
      release();
      const done = await eventually(async () => (got.completed ? got.values.at(-1) : undefined), 10000, 'the subscription to complete');
      expect(done!.data.place_order).to.deep.equal({ id, errors: null, output: { name: 'slow', author: { name: 'cid' } } });
      expect(got.errors).to.deep.equal([]);
      // Another session's subscription answers null and completes at once.
      const theirs = new Received<{ data: unknown }>();
      other.subscribe({ query }, theirs.sink);
      await eventually(async () => (theirs.completed ? true : undefined), 5000, 'the other subscription to complete');
      expect(theirs.values).to.deep.equal([{ data: { place_order: null } }]);
    } finally {
      release();
      await mine.dispose();
      await other.dispose();
    }
  });

  it('drop_action clears the stored results of an asynchronous action, only once the drop is committed', async () => {
    await f.as('user', '5', `mutation { place_order(name: "x") }`);
    const count = async () => Number((await f.db.sql(`SELECT count(*) AS n FROM svc_catalog.svc_action_log WHERE action_name = 'place_order'`)).rows[0].n);
    expect(await count()).to.be.greaterThan(0);
    // A change refused after the operation ran (here by a plugin's apply tap) keeps the results.
    let refuse = true;
    f.engine.kernel.hooks.onMetadataApply.tap('test-refuse', () => {
      if (refuse) throw new Error('refused by the test');
    });
    const refused = await metadata(f.engine, { type: 'drop_action', args: { name: 'place_order' } });
    expect(refused.status).to.not.equal(200);
    expect(await count()).to.be.greaterThan(0);
    refuse = false;
    expect((await metadata(f.engine, { type: 'drop_action', args: { name: 'place_order' } })).status).to.equal(200);
    expect(await count()).to.equal(0);
  });
});
