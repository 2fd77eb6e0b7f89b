/**
 * A TCP proxy in the test process that can stall: while stalled it keeps every connection open
 * and accepts new ones, but forwards nothing in either direction (what arrives is held); resumed,
 * it delivers what it held and forwards again. That is what a hung middlebox or a network path
 * that drops packets looks like to the engine: no RST, no FIN, no answer.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface StallingProxy {
  /** Port on 127.0.0.1 the proxy listens on. */
  readonly port: number;
  stall(): void;
  resume(): void;
  /** Client connections currently open through the proxy. */
  readonly openConnections: number;
  close(): Promise<void>;
}

/** One direction of a proxied connection, gated by the proxy's stalled flag. */
class Gate {
  private held: Buffer[] = [];

  constructor(
    private readonly to: Socket,
    private readonly stalled: () => boolean,
  ) {}

  push(chunk: Buffer): void {
    if (this.stalled() || this.held.length > 0) this.held.push(chunk);
    else this.to.write(chunk);
  }

  flush(): void {
    for (const chunk of this.held) this.to.write(chunk);
    this.held = [];
  }
}

export async function startStallingProxy(targetHost: string, targetPort: number): Promise<StallingProxy> {
  let stalled = false;
  const gates = new Set<Gate>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const up = new Gate(upstream, () => stalled);
    const down = new Gate(client, () => stalled);
    gates.add(up);
    gates.add(down);
    client.on('data', (c: Buffer) => up.push(c));
    upstream.on('data', (c: Buffer) => down.push(c));
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
      gates.delete(up);
      gates.delete(down);
    };
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
  return {
    port: address.port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const g of gates) g.flush();
    },
    get openConnections() {
      let n = 0;
      for (const s of sockets) if (s.remotePort !== targetPort) n++;
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A stalling proxy in front of a database; `url` is the database's URL through the proxy. */
export type StallingDatabaseProxy = StallingProxy & { readonly url: string };

/** A stalling proxy in front of the database at `databaseUrl`. */
export async function startStallingProxyTo(databaseUrl: string): Promise<StallingDatabaseProxy> {
  const target = new URL(databaseUrl);
  const proxy = await startStallingProxy(target.hostname, Number(target.port || 5432));
  const proxied = new URL(databaseUrl);
  proxied.host = `127.0.0.1:${proxy.port}`;
  return Object.assign(proxy, { url: proxied.toString() });
}
