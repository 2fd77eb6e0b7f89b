/**
 * The websocket endpoint on the HTTP server's own port: takes upgrades of `/v1/graphql` and
 * `/v1alpha1/graphql` (other paths: 404; a foreign Origin under CORS: 400; while shutting down:
 * 503), picks the protocol from `Sec-WebSocket-Protocol`, and keeps the open connections so that
 * shutdown and metadata changes can close them with the reference engine's codes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { type Logger, logHttp, originMatcher, requestIdOf, type ServerConfig } from '../../../core/sdk/index.js';
import { WsConnection, type ConnectionDeps, type WsMode } from './connection.js';
import { LEGACY_WS, TRANSPORT_WS, protocolOf } from './protocol.js';

const PATHS: ReadonlyMap<string, WsMode> = new Map([
  ['/v1/graphql', 'v1'],
  ['/v1alpha1/graphql', 'v1alpha1'],
]);

export const CLOSE_SHUTDOWN = { code: 1012, reason: 'shutting server down' } as const;
export const CLOSE_METADATA_CHANGED = { code: 1012, reason: 'Server state changed, restarting the server' } as const;

export class GraphQLWsServer {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<WsConnection>();
  private readonly originAllowed: ((origin: string) => boolean) | null;
  private shuttingDown = false;
  private inFlight = 0;
  private drained: (() => void) | null = null;
  /** Endpoints other API plugins serve through this server (Relay's `/v1beta1/relay`): their own executor and subscriptions. */
  private readonly endpoints = new Map<string, () => Omit<ConnectionDeps, 'inFlight'>>();

  constructor(
    private readonly config: ServerConfig,
    private readonly logger: Logger,
    private readonly deps: () => Omit<ConnectionDeps, 'inFlight'>,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: config.websocketCompression,
      maxPayload: config.maxRequestBodySize,
      // The protocol is decided from the raw header (see protocolOf); the accept names it
      // when the client offered it.
      handleProtocols: (offered, req) => {
        const p = protocolOf(req.headers['sec-websocket-protocol']);
        if (p === 'transport') return TRANSPORT_WS;
        return offered.has(LEGACY_WS) ? LEGACY_WS : false;
      },
    });
    this.originAllowed = config.disableCors ? null : originMatcher(config.corsDomain);
  }

  /**
   * Serves another GraphQL endpoint over the same protocols, connections and shutdown; its
   * operations run on the executor and subscription manager `deps` gives (errors as `/v1/graphql`).
   */
  addEndpoint(path: string, deps: () => Omit<ConnectionDeps, 'inFlight'>): void {
    this.endpoints.set(path, deps);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    const ip = req.socket.remoteAddress ?? '';
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const endpoint = this.endpoints.get(path);
    const mode = PATHS.get(path) ?? (endpoint ? 'v1' : undefined);
    const refuse = (status: number, text: string, extra = ''): void => {
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\n${extra}\r\n${text}`,
      );
      logHttp(this.logger, { requestId, method: req.method ?? 'GET', url, status, ip, httpVersion: req.httpVersion, startedNs: started });
    };
    if (!mode) return refuse(404, `only ${englishPaths([...PATHS.keys(), ...this.endpoints.keys()])} are supported on websockets`);
    if (this.shuttingDown) return refuse(503, 'Server is shutting down', 'Retry-After: 0\r\n');
    const origin = req.headers.origin;
    if (origin && this.originAllowed && !this.originAllowed(origin)) {
      return refuse(400, JSON.stringify({ path: '$', error: 'received origin header does not match configured CORS domains', code: 'access-denied' }));
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      logHttp(this.logger, { requestId, method: req.method ?? 'GET', url, status: 101, ip, httpVersion: req.httpVersion, startedNs: started });
      const protocol = protocolOf(req.headers['sec-websocket-protocol']);
      const headers = { ...req.headers };
      // Without CORS the browser's cookies are not the client's to send (reference behaviour),
      // unless --ws-read-cookie says the deployment takes that risk.
      if (this.config.disableCors && !this.config.wsReadCookie) delete headers.cookie;
      const conn = new WsConnection(ws, protocol, mode, headers, ip, {
        ...(endpoint ?? this.deps)(),
        inFlight: { begin: () => this.inFlight++, end: () => this.endOne() },
      });
      this.connections.add(conn);
      ws.on('close', () => this.connections.delete(conn));
      conn.start();
    });
  }

  /** Closes every connection (metadata change). */
  closeAll(code: number, reason: string): void {
    for (const c of [...this.connections]) c.close(code, reason);
  }

  /**
   * Refuses new connections, lets in-flight queries and mutations finish (up to the graceful
   * shutdown timeout), then closes every socket with 1012.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.config.gracefulShutdownTimeout * 1000);
        timer.unref();
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.closeAll(CLOSE_SHUTDOWN.code, CLOSE_SHUTDOWN.reason);
    this.wss.close();
  }

  private endOne(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.drained?.();
  }
}

/** `'/a' and '/b'`, `'/a', '/b' and '/c'`: the paths served, as the 404 names them. */
function englishPaths(paths: string[]): string {
  const quoted = paths.map((p) => `'${p}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 503: 'Service Unavailable' };
