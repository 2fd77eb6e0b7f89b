/**
 * One GraphQL websocket connection: `connection_init` authenticates through `onRequestAuth`
 * (payload headers over the upgrade request's), operations run through the same executor as
 * HTTP (queries and mutations) or the subscription manager, and keep-alives, the init timeout
 * and the credentials' expiry are enforced, with the reference engine's messages and close codes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WebSocket } from 'ws';
import {
  authenticate,
  errorBody,
  FirstRunError,
  type ExecutionMeta,
  type GraphQLExecutor,
  type GraphQLRequest,
  type KernelHooks,
  type Logger,
  type ServerConfig,
  type Session,
  showInternalTo,
  type SubscriptionHandle,
  type SubscriptionManager,
  toEngineError,
} from '../../../core/sdk/index.js';
import { ClientMessageError, jsonReason, parseClientMessage, serverMessage, type ClientMessage, type Protocol } from './protocol.js';

export type WsMode = 'v1' | 'v1alpha1';

/**
 * Backpressure for clients that read slower than their subscriptions produce. Past
 * SEND_HIGH_WATER bytes queued on the socket, a live query's new result is held back and only the
 * newest per operation is kept (a live result supersedes the one before: drop-to-latest); the
 * held results go out once the queue drains below SEND_LOW_WATER. Stream batches, query results
 * and protocol messages cannot be dropped: past SEND_HARD_LIMIT queued the connection is closed
 * with CLOSE_SLOW_CONSUMER (and cut after SLOW_CLOSE_GRACE_MS if the close cannot get through).
 */
export const SEND_HIGH_WATER = 256 * 1024;
export const SEND_LOW_WATER = 64 * 1024;
export const SEND_HARD_LIMIT = 8 * 1024 * 1024;
export const CLOSE_SLOW_CONSUMER = { code: 1013, reason: 'client too slow: send buffer full' } as const;
const SLOW_CLOSE_GRACE_MS = 10_000;

export interface ConnectionDeps {
  hooks: KernelHooks;
  config: ServerConfig;
  logger: Logger;
  executor: GraphQLExecutor;
  subscriptions: SubscriptionManager;
  /** Counts in-flight queries and mutations, so shutdown can wait for them. */
  inFlight: { begin(): void; end(): void };
}

type InitState = { kind: 'pending' } | { kind: 'ready'; session: Session } | { kind: 'failed'; message: string };

export class WsConnection {
  readonly id = randomUUID();
  private init: InitState = { kind: 'pending' };
  private initializing: Promise<void> | null = null;
  private readonly operations = new Map<string, SubscriptionHandle | 'starting'>();
  private readonly timers: NodeJS.Timeout[] = [];
  private expiry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Live-query results held back while the socket's queue is over the high-water mark, newest per operation. */
  private readonly heldBack = new Map<string, string>();

  constructor(
    private readonly ws: WebSocket,
    readonly protocol: Protocol,
    private readonly mode: WsMode,
    private readonly upgradeHeaders: IncomingHttpHeaders,
    private readonly ip: string,
    private readonly deps: ConnectionDeps,
  ) {}

  start(): void {
    const { config } = this.deps;
    this.log({ type: 'accepted' });
    if (config.websocketKeepalive > 0) {
      const ka = setInterval(() => this.send(serverMessage.keepAlive(this.protocol)), config.websocketKeepalive * 1000);
      this.timers.push(ka);
    }
    const initTimeout = setTimeout(() => {
      if (this.init.kind === 'pending') this.close(this.protocol === 'legacy' ? 1011 : 4408, 'Connection initialisation timed out');
    }, config.websocketConnectionInitTimeout * 1000);
    this.timers.push(initTimeout);
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return this.badMessage('Error in $: binary frames are not GraphQL messages');
      void this.onMessage(data.toString());
    });
    this.ws.on('close', (code, reason) => this.cleanup(code, reason.toString()));
    this.ws.on('error', () => this.cleanup(1006, 'error'));
  }

  /** Closes with a code and reason (server shutdown, metadata change). */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    this.cleanup(code, reason);
  }

  private cleanup(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    clearTimeout(this.expiry);
    for (const op of this.operations.values()) if (op !== 'starting') op.stop();
    this.operations.clear();
    this.heldBack.clear();
    this.log({ type: 'closed', code, reason });
  }

  private send(text: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > SEND_HARD_LIMIT) return this.slowConsumer();
    this.ws.send(text, this.flushed);
  }

  /** A subscription's result: a live query's may wait for the queue to drain (only its newest is kept). */
  private sendResult(id: string, json: string): void {
    const op = this.operations.get(id);
    if (op === undefined) return;
    const droppable = op !== 'starting' && !op.streaming;
    if (droppable && (this.heldBack.has(id) || this.ws.bufferedAmount > SEND_HIGH_WATER)) {
      this.heldBack.set(id, json);
      return;
    }
    this.send(serverMessage.data(this.protocol, id, json));
  }

  /** Called as each frame leaves for the socket: once the queue is low, held-back results go. */
  private readonly flushed = (): void => {
    if (this.heldBack.size === 0 || this.closed || this.ws.bufferedAmount > SEND_LOW_WATER) return;
    const held = [...this.heldBack];
    this.heldBack.clear();
    for (const [id, json] of held) if (this.operations.has(id)) this.send(serverMessage.data(this.protocol, id, json));
  };

  private slowConsumer(): void {
    if (this.closed) return;
    const ws = this.ws;
    this.log({ type: 'slow_consumer', buffered_bytes: ws.bufferedAmount });
    this.close(CLOSE_SLOW_CONSUMER.code, CLOSE_SLOW_CONSUMER.reason);
    // The close frame queues behind what the client is not reading: cut the socket if it stays stuck.
    setTimeout(() => ws.terminate(), SLOW_CLOSE_GRACE_MS).unref();
  }

  private async onMessage(text: string): Promise<void> {
    let msg: ClientMessage;
    try {
      msg = parseClientMessage(text);
    } catch (e) {
      return this.badMessage(e instanceof ClientMessageError ? e.message : String(e));
    }
    switch (msg.type) {
      case 'connection_init':
        this.initializing = this.onInit(msg.headers);
        return this.initializing;
      case 'start':
        // Messages are handled in order: a start sent right behind connection_init (the legacy
        // client does not wait for the ack) waits for the authentication.
        if (this.initializing) await this.initializing;
        return this.onStart(msg.id, msg.request);
      case 'stop': {
        const op = this.operations.get(msg.id);
        this.operations.delete(msg.id);
        this.heldBack.delete(msg.id);
        if (op && op !== 'starting') op.stop();
        if (op) this.logOperation(msg.id, 'stopped');
        return;
      }
      case 'connection_terminate':
        return this.close(1000, 'GQL_CONNECTION_TERMINATE received');
      case 'ping':
        return this.send(serverMessage.pong(msg.payload));
      case 'pong':
        return;
    }
  }

  private badMessage(detail: string): void {
    if (this.protocol === 'legacy') {
      this.send(serverMessage.connectionError(`parsing ClientMessage failed: ${detail}`));
    } else {
      this.close(4400, jsonReason(`4400: Parsing client message failed: ${detail}`));
    }
  }

  private async onInit(payloadHeaders: Record<string, string>): Promise<void> {
    const headers: IncomingHttpHeaders = { ...this.upgradeHeaders, ...payloadHeaders };
    try {
      const session = await authenticate(this.deps.hooks, { headers, ip: this.ip, responseHeaders: [] });
      if (this.closed) return;
      this.init = { kind: 'ready', session };
      this.watchExpiry(session);
      this.log({ type: 'initialised' }, session);
      this.send(serverMessage.ack());
      if (this.protocol === 'legacy') this.send(serverMessage.keepAlive('legacy'));
    } catch (e) {
      const message = toEngineError(e).message;
      this.init = { kind: 'failed', message };
      this.log({ type: 'init_failed', error: message });
      if (this.protocol === 'legacy') {
        this.send(serverMessage.connectionError(message));
        this.close(4400, jsonReason(`4400: Connection initialization failed: ${message}`));
      } else {
        this.close(4403, jsonReason('4403: Forbidden'));
      }
    }
  }

  /** At the credentials' expiry the connection just ends, as the reference engine does. */
  private watchExpiry(session: Session): void {
    clearTimeout(this.expiry);
    if (!session.expiresAt) return;
    const ms = session.expiresAt.getTime() - Date.now();
    const end = (): void => {
      this.log({ type: 'jwt_expired' });
      this.ws.terminate();
      this.cleanup(1006, 'credentials expired');
    };
    // setTimeout takes at most ~24.8 days; longer expiries re-arm.
    const MAX = 2 ** 31 - 1;
    if (ms <= 0) return end();
    this.expiry = setTimeout(() => (ms > MAX ? this.watchExpiry(session) : end()), Math.min(ms, MAX));
  }

  private startFailed(id: string, message: string): void {
    const error = { extensions: { path: '$', code: 'start-failed' }, message };
    this.send(serverMessage.error(id, JSON.stringify(error)));
    this.send(serverMessage.complete(id));
    if (this.protocol === 'transport') this.close(1000, jsonReason(`4400: ${message}`));
  }

  private async onStart(id: string, request: GraphQLRequest): Promise<void> {
    if (this.init.kind === 'pending') return this.startFailed(id, 'start received before the connection is initialised');
    if (this.init.kind === 'failed') return this.startFailed(id, `cannot start as connection_init failed with: ${this.init.message}`);
    if (this.operations.has(id)) return this.startFailed(id, `an operation already exists with this id: ${id}`);
    const session = this.init.session;
    const { subscriptions, executor } = this.deps;
    this.operations.set(id, 'starting');
    this.logOperation(id, 'started', request);
    try {
      // API limits and the allow-list apply per operation, as over HTTP (endpoint `websocket`).
      const meta = { endpoint: 'websocket', ip: this.ip, operationCount: 1 };
      const sink = {
        push: (json: string) => this.sendResult(id, json),
        // A subscription whose answer is final (an async action's result) ends from our side,
        // after any result still held back by backpressure.
        complete: () => {
          if (!this.operations.has(id)) return;
          const held = this.heldBack.get(id);
          this.heldBack.delete(id);
          if (held !== undefined) this.send(serverMessage.data(this.protocol, id, held));
          this.operations.delete(id);
          this.send(serverMessage.complete(id));
          this.logOperation(id, 'completed');
        },
      };
      const handle = await subscriptions.subscribe(request, session, sink, meta, executor);
      if (handle) {
        // Stopped (or closed) while starting: the client no longer wants it.
        if (this.operations.get(id) !== 'starting') return handle.stop();
        this.operations.set(id, handle);
        return;
      }
      this.operations.delete(id);
      await this.runQuery(id, request, session, meta);
    } catch (e) {
      const wanted = this.operations.get(id) === 'starting';
      this.operations.delete(id);
      if (!wanted) return;
      if (e instanceof FirstRunError) this.executionError(id, e.cause, session);
      else this.preExecutionError(id, e, session);
      this.send(serverMessage.complete(id));
      this.logOperation(id, 'completed');
    }
  }

  /** A query or mutation: one result, then `complete`; planning errors are pre-execution errors. */
  private async runQuery(id: string, request: GraphQLRequest, session: Session, meta: ExecutionMeta): Promise<void> {
    const { executor, inFlight } = this.deps;
    inFlight.begin();
    try {
      try {
        await executor.plan(request, session);
      } catch (e) {
        // The operation left the starting state before it was planned: report here, or nobody does.
        this.preExecutionError(id, e, session);
        this.send(serverMessage.complete(id));
        this.logOperation(id, 'completed');
        return;
      }
      let body: string;
      try {
        body = await executor.execute(request, session, meta);
      } catch (e) {
        this.executionError(id, e, session);
        this.send(serverMessage.complete(id));
        this.logOperation(id, 'completed');
        return;
      }
      this.send(serverMessage.data(this.protocol, id, body));
      this.send(serverMessage.complete(id));
      this.logOperation(id, 'completed');
    } finally {
      inFlight.end();
    }
  }

  private errorsJson(e: unknown, session: Session): string {
    const err = toEngineError(e);
    const extensions: Record<string, unknown> = { path: err.path, code: err.code };
    if (showInternalTo(session, this.deps.config) && err.internal !== undefined) extensions['internal'] = err.internal;
    return JSON.stringify([{ extensions, message: err.message }]);
  }

  private preExecutionError(id: string, e: unknown, session: Session): void {
    if (this.protocol === 'transport') return this.send(serverMessage.error(id, this.errorsJson(e, session)));
    if (this.mode === 'v1alpha1') {
      return this.send(serverMessage.error(id, JSON.stringify(errorBody(toEngineError(e), showInternalTo(session, this.deps.config)))));
    }
    this.send(serverMessage.error(id, `{"errors":${this.errorsJson(e, session)}}`));
  }

  private executionError(id: string, e: unknown, session: Session): void {
    const errors = this.errorsJson(e, session);
    if (this.protocol === 'transport') this.send(serverMessage.error(id, errors));
    else this.send(serverMessage.data('legacy', id, `{"data":null,"errors":${errors}}`));
  }

  private log(event: Record<string, unknown>, session?: Session): void {
    const { logger } = this.deps;
    if (!logger.enabled('websocket-log', 'info')) return;
    const user = session ?? (this.init.kind === 'ready' ? this.init.session : undefined);
    logger.info('websocket-log', {
      event,
      connection_info: {
        websocket_id: this.id,
        protocol: this.protocol === 'legacy' ? 'graphql-ws' : 'graphql-transport-ws',
        token_expiry: user?.expiresAt?.toISOString() ?? null,
      },
      user_vars: user ? user.variables : null,
    });
  }

  private logOperation(id: string, type: 'started' | 'stopped' | 'completed', request?: GraphQLRequest): void {
    this.log({
      type: 'operation',
      detail: {
        operation_id: id,
        operation_type: { type },
        ...(request ? { operation_name: request.operationName, query: { query: request.query } } : {}),
      },
    });
  }
}
