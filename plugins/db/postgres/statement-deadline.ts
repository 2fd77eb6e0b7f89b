/**
 * Time limits for statements: at the deadline, PostgreSQL's own cancel request is sent for the
 * backend running the statement, so the database stops working on it (the statement fails with
 * `query_canceled`, a transaction rolls back). The cancel request goes over a fresh socket and
 * needs no login and no pool slot, so it works even when every pooled connection is busy.
 */
import { connect, type Socket } from 'node:net';
import type { PoolClient } from 'pg';
import { EngineError } from '../../../core/sdk/index.js';
import { STALL_GRACE_MS, destroyConnection } from './stall-guard.js';

/** What pg keeps on a client about its backend (not in pg's published types). */
interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  connectionParameters?: { host?: string; port?: number };
}

const CANCEL_REQUEST_CODE = 80877102;

export function timeLimitExceeded(): EngineError {
  return new EngineError('time-limit-exceeded', 'time limit exceeded: the operation ran past its time limit and its database statement was cancelled');
}

/** Sends the cancel request for whatever `client`'s backend is running; errors are ignored. */
export function sendCancelRequest(client: PoolClient): void {
  const key = client as unknown as BackendKey;
  const host = key.connectionParameters?.host ?? 'localhost';
  const port = key.connectionParameters?.port ?? 5432;
  if (key.processID === null || key.secretKey === null) return;
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(key.processID, 8);
  packet.writeInt32BE(key.secretKey, 12);
  const socket: Socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
  socket.setTimeout(5000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  // The server closes the socket once it has read the request.
  socket.once('connect', () => socket.end(packet));
}

/**
 * Watches one client for a deadline; `fired` tells whether the statement was cancelled. A cancel
 * request cannot get through a stalled network path either, so when the statement is still
 * running STALL_GRACE_MS after it, the connection is destroyed: the statement fails at once and
 * the pool drops the client.
 */
export class StatementDeadline {
  fired = false;
  private timer: NodeJS.Timeout;

  constructor(client: PoolClient, deadline: number) {
    this.timer = setTimeout(() => {
      this.fired = true;
      sendCancelRequest(client);
      this.timer = setTimeout(() => destroyConnection(client), STALL_GRACE_MS);
    }, Math.max(0, deadline - Date.now()));
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** A deadline that passed while waiting for a connection: nothing may start any more. */
export function checkNotPassed(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() >= deadline) throw timeLimitExceeded();
}
