import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { OutgoingCallError, OutgoingHttp } from '../../../core/http/outgoing.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(p: Promise<unknown>): Promise<OutgoingCallError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(OutgoingCallError);
    return e as OutgoingCallError;
  }
  throw new Error('expected the call to fail');
}

describe('OutgoingHttp (the shared client for webhooks and remote calls)', () => {
  const client = new OutgoingHttp({ connectionsPerOrigin: 4 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/echo') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      } else if (req.url === '/hang') {
        // never answers
      } else if (req.url === '/slow-body') {
        res.writeHead(200);
        res.write('x');
      } else if (req.url === '/big') {
        res.writeHead(200);
        res.end(Buffer.alloc(4096, 'a'));
      } else if (req.url === '/big-chunked') {
        res.writeHead(200);
        for (let i = 0; i < 8; i++) res.write(Buffer.alloc(1024, 'b'));
        res.end();
      } else {
        res.writeHead(404);
        res.end('nope');
      }
    });
  });
  let base = '';
  before(async () => {
    base = await listen(server);
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await client.close();
  });

  it('sends exactly the given method, headers and body, and reads status, headers and body', async () => {
    const res = await client.request({
      url: `${base}/echo`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-custom': 'v' },
      body: '{"a":1}',
      timeoutMs: 2000,
    });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/json');
    const echoed = JSON.parse(res.body.toString()) as { method: string; headers: Record<string, string>; body: string };
    expect(echoed.method).to.equal('POST');
    expect(echoed.body).to.equal('{"a":1}');
    expect(echoed.headers['x-custom']).to.equal('v');
    expect(echoed.headers).to.not.have.property('user-agent');
    expect(res.elapsedMs).to.be.a('number');
  });

  it('answers non-2xx statuses as responses, not failures', async () => {
    const res = await client.request({ url: `${base}/missing`, timeoutMs: 2000 });
    expect(res.status).to.equal(404);
    expect(res.body.toString()).to.equal('nope');
  });

  it('times out a peer that never answers, and one that stalls mid-body', async () => {
    expect((await failure(client.request({ url: `${base}/hang`, timeoutMs: 150 }))).kind).to.equal('timeout');
    expect((await failure(client.request({ url: `${base}/slow-body`, timeoutMs: 150 }))).kind).to.equal('timeout');
  });

  it('refuses responses over the size cap, declared or streamed', async () => {
    const declared = await failure(client.request({ url: `${base}/big`, timeoutMs: 2000, maxResponseBytes: 1000 }));
    expect(declared.kind).to.equal('too-large');
    const streamed = await failure(client.request({ url: `${base}/big-chunked`, timeoutMs: 2000, maxResponseBytes: 3000 }));
    expect(streamed.kind).to.equal('too-large');
  });

  it('reports refused connections and bad URLs by kind', async () => {
    const probe = createServer();
    const url = await listen(probe);
    await new Promise((r) => probe.close(r));
    const refused = await failure(client.request({ url, timeoutMs: 2000 }));
    expect(refused.kind).to.equal('connection');
    expect(refused.message).to.match(/ECONNREFUSED/);
    expect((await failure(client.request({ url: 'not a url', timeoutMs: 100 }))).kind).to.equal('invalid-url');
    expect((await failure(client.request({ url: 'file:///etc/passwd', timeoutMs: 100 }))).kind).to.equal('invalid-url');
  });

  it('stops when the caller cancels', async () => {
    const ac = new AbortController();
    const p = client.request({ url: `${base}/hang`, timeoutMs: 5000, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect((await failure(p)).kind).to.equal('aborted');
  });
});
