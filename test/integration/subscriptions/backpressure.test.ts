/**
 * Backpressure for a client that stops reading (its socket paused, so the engine's send queue
 * fills): a live query's results are dropped to the latest (fewer messages than changes, and the
 * last one is the newest), and a stream, whose batches cannot be dropped, closes the connection
 * with 1013 once the queue passes its hard limit. Results of a megabyte each outrun the kernel's
 * socket buffers quickly.
 */
import { expect } from 'chai';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { metadata } from '../../helpers/engine.js';
import { CLOSE_SLOW_CONSUMER } from '../../../plugins/api/websocket/connection.js';
import { ADMIN, startSubsFixture, waitFor, type SubsFixture } from './fixture.js';

const BLOB_SQL = `
  CREATE TABLE blob (id int PRIMARY KEY, version int NOT NULL, body text NOT NULL);
  INSERT INTO blob VALUES (1, 0, 'x');
  CREATE TABLE feed (id serial PRIMARY KEY, body text NOT NULL);
`;
// About a megabyte of text that does not compress away.
const MEGABYTE = `(SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 32768))`;

interface Client {
  ws: WebSocket;
  data: Array<{ id: string; payload: unknown }>;
  closed: { code: number; reason: string } | null;
  socket(): Socket;
}

async function connect(url: string): Promise<Client> {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const c: Client = { ws, data: [], closed: null, socket: () => (ws as unknown as { _socket: Socket })._socket };
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as { type: string; id: string; payload: unknown };
    if (m.type === 'next') c.data.push({ id: m.id, payload: m.payload });
  });
  ws.on('close', (code, reason) => (c.closed = { code, reason: reason.toString() }));
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const acked = new Promise<void>((resolve) => ws.once('message', () => resolve()));
  ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: ADMIN } }));
  await acked;
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('subscriptions: backpressure on slow websocket clients (integration)', function () {
  this.timeout(90_000);
  let f: SubsFixture;

  before(async () => {
    f = await startSubsFixture(
      'limits2_backpressure',
      { liveQueriesMultiplexedRefetchInterval: 50, streamingQueriesMultiplexedRefetchInterval: 50, liveQueriesChangeTracking: false },
      BLOB_SQL,
    );
    const res = await metadata(
      f.engine,
      { type: 'bulk', args: [{ type: 'pg_track_table', args: { table: 'blob' } }, { type: 'pg_track_table', args: { table: 'feed' } }] },
      ADMIN,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(() => f?.close());

  it('a live query drops to the latest result while the client does not read', async () => {
    const c = await connect(f.wsUrl);
    c.ws.send(JSON.stringify({ type: 'subscribe', id: 'live', payload: { query: 'subscription { blob_by_pk(id: 1) { version body } }' } }));
    await waitFor(() => c.data[0], 10_000, 'the first result');
    c.socket().pause();
    const VERSIONS = 40;
    for (let v = 1; v <= VERSIONS; v++) {
      await f.db.sql(`UPDATE blob SET version = $1, body = ${MEGABYTE} WHERE id = 1`, [v]);
      await sleep(80);
    }
    await sleep(500);
    c.socket().resume();
    const versionOf = (i: number) => (c.data[i]!.payload as { data: { blob_by_pk: { version: number } } }).data.blob_by_pk.version;
    await waitFor(() => (c.data.length > 1 && versionOf(c.data.length - 1) === VERSIONS ? true : undefined), 30_000, 'the newest result');
    const versions = c.data.map((_, i) => versionOf(i));
    // Most results went missing while the queue was full (a few megabytes fit in the kernel's
    // buffers first), the ones sent kept their order, and the newest arrived.
    expect(versions.length).to.be.below(VERSIONS / 2);
    expect([...versions].sort((a, b) => a - b)).to.deep.equal(versions);
    expect(c.closed).to.equal(null);
    c.ws.close();
  });

  it('a stream, whose batches cannot be dropped, closes 1013 past the hard limit', async () => {
    const c = await connect(f.wsUrl);
    c.ws.send(
      JSON.stringify({
        type: 'subscribe',
        id: 'stream',
        payload: { query: 'subscription { feed_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id body } }' },
      }),
    );
    await waitFor(() => (f.manager().stats().subscribers > 0 ? true : undefined), 10_000, 'the stream to start');
    await sleep(300);
    c.socket().pause();
    // Stop writing once the engine gives up on the client: its close frame waits behind the queue
    // for SLOW_CLOSE_GRACE_MS only, and writing on past that (slow on a loaded machine) would let
    // the socket be cut before the client resumes reading.
    for (let i = 0; i < 40 && f.manager().stats().subscribers > 0; i++) await f.db.sql(`INSERT INTO feed (body) SELECT ${MEGABYTE}`);
    await waitFor(() => (f.manager().stats().subscribers === 0 ? true : undefined), 30_000, 'the engine to drop the slow subscriber');
    c.socket().resume();
    const closed = await waitFor(() => c.closed ?? undefined, 30_000, 'the close');
    expect(closed).to.deep.equal({ code: CLOSE_SLOW_CONSUMER.code, reason: CLOSE_SLOW_CONSUMER.reason });
    // What was queued before the limit arrived in order, without gaps.
    const ids = c.data.map((d) => (d.payload as { data: { feed_stream: Array<{ id: number }> } }).data.feed_stream[0]!.id);
    expect(ids).to.deep.equal(ids.map((_, i) => i + 1));
    expect(ids.length).to.be.below(40);
  });
});
