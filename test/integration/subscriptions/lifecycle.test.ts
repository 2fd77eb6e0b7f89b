import { expect } from 'chai';
import { createLogger } from '../../../core/logger.js';
import { call, metadata } from '../../helpers/engine.js';
import { ADMIN, RawSocket, startSubsFixture, type SubsFixture } from './fixture.js';

async function initialised(url: string, protocol = 'graphql-transport-ws'): Promise<RawSocket> {
  const s = new RawSocket(url, protocol);
  await s.opened();
  s.send({ type: 'connection_init', payload: { headers: ADMIN } });
  await s.message((m) => m['type'] === 'connection_ack');
  return s;
}

describe('subscriptions: connection lifecycle, logs and config (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  const lines: Array<{ type: string; detail: Record<string, unknown> }> = [];
  before(async () => {
    const logger = createLogger({ level: 'info', enabledTypes: ['websocket-log', 'http-log'], sink: (l) => void lines.push(JSON.parse(l)) });
    f = await startSubsFixture('life', { liveQueriesMultiplexedRefetchInterval: 250, streamingQueriesMultiplexedBatchSize: 7, maxRequestBodySize: 8192 }, '', { logger });
  });
  after(async () => f?.close());

  it('reports the live and streaming options on /v1alpha1/config, the delay in seconds', async () => {
    const res = await call(f.engine, '/v1alpha1/config', undefined, ADMIN);
    expect(res.body.live_queries).to.deep.equal({ batch_size: 100, refetch_delay: 0.25 });
    expect(res.body.streaming_queries).to.deep.equal({ batch_size: 7, refetch_delay: 1 });
  });

  it('records connections and operations in websocket-log and the upgrade in http-log', async () => {
    const s = await initialised(f.wsUrl);
    s.send({ type: 'subscribe', id: 'a', payload: { query: '{ author_by_pk(id: 1) { id } }' } });
    await s.message((m) => m['type'] === 'complete');
    s.ws.close();
    await s.closedWith();
    const ws = lines.filter((l) => l.type === 'websocket-log').map((l) => l.detail['event'] as { type: string });
    expect(ws.map((e) => e.type)).to.include.members(['accepted', 'initialised', 'operation', 'closed']);
    expect(lines.some((l) => l.type === 'http-log' && (l.detail['http_info'] as { status: number }).status === 101)).to.equal(true);
  });

  it('closes 1009 on a frame larger than --max-request-body-size, and ignores stops of unknown ids', async () => {
    const s = await initialised(f.wsUrl);
    s.send({ type: 'complete', id: 'never-started' });
    s.send({ type: 'ping' });
    await s.message((m) => m['type'] === 'pong');
    s.send({ type: 'subscribe', id: 'big', payload: { query: `{ __typename }`, variables: { pad: 'x'.repeat(10_000) } } });
    expect((await s.closedWith()).code).to.equal(1009);
  });

  it('closes every socket with 1012 when the metadata changes', async () => {
    const s = await initialised(f.wsUrl);
    const legacy = await initialised(f.wsUrl, 'graphql-ws');
    const res = await metadata(f.engine, { type: 'pg_set_table_customization', args: { table: 'other', configuration: { custom_name: 'others' } } }, ADMIN);
    expect(res.status).to.equal(200);
    const reason = 'Server state changed, restarting the server';
    expect(await s.closedWith()).to.deep.equal({ code: 1012, reason });
    expect(await legacy.closedWith()).to.deep.equal({ code: 1012, reason });
  });

  it('closes sockets with 1012 on shutdown and stops polling', async () => {
    const s = await initialised(f.wsUrl);
    s.send({ type: 'subscribe', id: 'live', payload: { query: 'subscription { author { id } }' } });
    await s.message((m) => m['type'] === 'next');
    await f.engine.close();
    expect(await s.closedWith()).to.deep.equal({ code: 1012, reason: 'shutting server down' });
    expect(f.manager().stats().pollers).to.equal(0);
  });
});
