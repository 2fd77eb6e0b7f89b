import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { eventually } from '../../helpers/webhook-sink.js';
import { CUSTOM_TYPES, startActionFixture, type ActionFixture } from './fixture.js';

/** 2^53 + 1: a double rounds it to 2^53, so a lossy parse would join it to the wrong row. */
const BIG = '9007199254740993';
const NEIGHBOUR = '9007199254740992';

describe('actions: relationship rows (bigint keys, time limit)', function () {
  this.timeout(30000);
  let f: ActionFixture;

  before(async () => {
    f = await startActionFixture('gaps_actions_rel');
    await f.db.sql(`
      CREATE TABLE account (id bigint PRIMARY KEY, label text NOT NULL);
      INSERT INTO account VALUES (${NEIGHBOUR}, 'neighbour'), (${BIG}, 'big');
      CREATE VIEW slow_author AS SELECT a.id, a.name FROM author a, LATERAL (SELECT pg_sleep(0.4)) s;`);
    const setup = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'account' } },
        { type: 'pg_track_table', args: { table: 'slow_author' } },
        {
          type: 'set_custom_types',
          args: {
            ...CUSTOM_TYPES,
            objects: [
              ...CUSTOM_TYPES.objects,
              {
                name: 'AccountRef',
                fields: [{ name: 'account_id', type: 'bigint!' }, { name: 'author_id', type: 'Int' }],
                relationships: [
                  { name: 'account', type: 'object', remote_table: 'account', field_mapping: { account_id: 'id' } },
                  { name: 'slow', type: 'object', remote_table: 'slow_author', field_mapping: { author_id: 'id' } },
                ],
              },
            ],
          },
        },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    await f.createAction('find_account', { type: 'query', arguments: [], output_type: '[AccountRef!]!' });
    await f.createAction('queue_account', { kind: 'asynchronous', arguments: [], output_type: 'AccountRef' });
    // The handler writes the ids as JSON numbers, as a bigint usually is.
    const body = `[{"account_id": ${BIG}, "author_id": 1}, {"account_id": ${NEIGHBOUR}, "author_id": 2}]`;
    f.handlers.set('find_account', () => ({ status: 200, body }));
    f.handlers.set('queue_account', () => ({ status: 200, body: `{"account_id": ${BIG}}` }));
  });
  after(async () => {
    await f.close();
  });

  it('joins ids beyond 2^53 to their own rows and answers them exactly', async () => {
    const raw = await fetch(`${f.engine.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ find_account { account_id account { id label } } }' }),
    });
    const text = await raw.text();
    // Compared as text: a JSON.parse here would round the ids just as the bug did.
    expect(text).to.equal(
      `{"data":{"find_account":[{"account_id":${BIG},"account":{"id":${BIG},"label":"big"}},` +
        `{"account_id":${NEIGHBOUR},"account":{"id":${NEIGHBOUR},"label":"neighbour"}}]}}`,
    );
  });

  it('keeps a bigint exact through an asynchronous action result', async () => {
    const started = await f.admin('mutation { queue_account }');
    const id = started.data.queue_account as string;
    const query = `{ queue_account(id: "${id}") { output { account_id account { label } } } }`;
    const text = await eventually(async () => {
      const r = await fetch(`${f.engine.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const t = await r.text();
      return t.includes('"output":{') ? t : undefined;
    }, 10000, 'the async result');
    expect(text).to.equal(`{"data":{"queue_account":{"output":{"account_id":${BIG},"account":{"label":"big"}}}}}`);
  });

  it('runs relationship statements under the operation time limit', async () => {
    const slow = `{ find_account { slow { name } } }`;
    // Without a limit, the slow view answers (two rows of author, 0.4 s each at most).
    const free = await f.as('admin', null, slow);
    expect(free.data.find_account.map((r: { slow: { name: string } }) => r.slow.name)).to.deep.equal(['ann', 'bob']);
    const set = await metadata(f.engine, { type: 'set_api_limits', args: { time_limit: { global: 0.3 } } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    try {
      await metadata(f.engine, { type: 'create_action_permission', args: { action: 'find_account', role: 'user' } });
      await metadata(f.engine, { type: 'pg_create_select_permission', args: { table: 'slow_author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } });
      const limited = await f.as('user', '1', slow);
      expect(limited.errors?.[0]?.extensions?.code, JSON.stringify(limited)).to.equal('time-limit-exceeded');
    } finally {
      await metadata(f.engine, { type: 'remove_api_limits', args: {} });
    }
  });
});
