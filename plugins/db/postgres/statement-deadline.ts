/**
 * Time limits for statements: at the deadline, PostgreSQL's own cancel request is sent for the
 * backend running the statement, so the database stops working on it (the statement fails with
 * `query_canceled`, a transaction rolls back). The cancel request goes over a fresh socket and
 * needs no login and no pool slot, so it works even when every pooled connection is busy.
 */
import { connect, type Socket } from 'node:net';
import type { PoolClient } from 'pg';
import { type EngineError, timeLimitExceeded } from '../../../core/sdk/index.js';
import { STALL_GRACE_MS, destroyConnection } from './stall-guard.js';

/** What pg keeps on a client about its backend (not in pg's published types). */
interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  connectionParameters?: { host?: string; port?: number };
}

const CANCEL_REQUEST_CODE = 80877102;

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

/** Something that happens at a deadline unless stopped first: what the watcher's list holds. */
abstract class DeadlineWatch {
  /** Neighbours in the watcher's list (null at its ends; undefined while not in it). */
  prev: DeadlineWatch | null | undefined;
  next: DeadlineWatch | null | undefined;

  constructor(
    /** A Date.now() time. */
    readonly deadline: number,
  ) {
    watcher.add(this);
  }

  /** The deadline passed first (the watch has already left the list). */
  abstract expire(): void;

  protected stopWatching(): void {
    watcher.delete(this);
  }
}

/**
 * Watches one client for a deadline; `fired` tells whether the statement was cancelled. A cancel
 * request cannot get through a stalled network path either, so when the statement is still
 * running STALL_GRACE_MS after it, the connection is destroyed: the statement fails at once and
 * the pool drops the client.
 */
export class StatementDeadline extends DeadlineWatch {
  fired = false;
  private grace: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: PoolClient,
    deadline: number,
  ) {
    super(deadline);
  }

  /** The deadline passed with the statement still running. */
  expire(): void {
    this.fired = true;
    sendCancelRequest(this.client);
    this.grace = setTimeout(() => destroyConnection(this.client), STALL_GRACE_MS);
  }

  /**
   * Stops watching. Answers why the connection must not go back to the pool, if it must not: a
   * cancel request names a backend, not a statement, and arrives over a socket of its own, so one
   * sent as the statement was ending can land after it, on whatever the connection runs next (an
   * unrelated request would fail with "canceling statement due to user request").
   */
  clear(): Error | undefined {
    this.stopWatching();
    if (this.grace !== undefined) clearTimeout(this.grace);
    return this.fired ? new Error('a cancel request was sent to this connection: not reused') : undefined;
  }
}

/** A wait for a pool connection that gives up at its deadline (see waitForConnection). */
class ConnectionWait extends DeadlineWatch {
  settled = false;

  constructor(
    deadline: number,
    private readonly giveUp: (e: EngineError) => void,
  ) {
    super(deadline);
  }

  expire(): void {
    this.settled = true;
    this.giveUp(timeLimitExceeded());
  }

  /** The wait ended before the deadline. */
  settle(): void {
    this.settled = true;
    this.stopWatching();
  }
}

/**
 * `acquiring` (a connection from the pool), given up with time-limit-exceeded at `deadline`: an
 * operation's time limit covers its wait for a free connection too, which with every connection
 * busy (and no pool timeout) would otherwise last as long as the busy ones. pg's pool cannot take
 * back a waiter, so a connection handed over after the deadline goes straight back to the pool.
 */
export function waitForConnection(acquiring: Promise<PoolClient>, deadline: number): Promise<PoolClient> {
  return new Promise<PoolClient>((resolve, reject) => {
    const wait = new ConnectionWait(deadline, reject);
    acquiring.then(
      (client) => {
        if (wait.settled) client.release();
        else {
          wait.settle();
          resolve(client);
        }
      },
      (e: unknown) => {
        if (wait.settled) return;
        wait.settle();
        reject(e);
      },
    );
  });
}

/**
 * Every statement (and wait for a connection) under a deadline, and one timer for the earliest
 * deadline among them. With a time limit set every statement has a deadline, and a timer of its
 * own per statement (set, then cleared a millisecond later) meant a Node timer list and libuv
 * timer moves per statement. Here a statement's watch joins a doubly linked list (no hashing,
 * unlike a Set of fresh objects, which showed up at about 1.7 µs per statement in a profile); the
 * timer moves only for a deadline earlier than the one it is set for, and when it fires with
 * nothing due (the statements it was set for have finished) it is set again for the earliest one
 * left, so with one time limit it is set about once per limit's length. It does not keep the
 * process alive: a statement in flight does, through its socket.
 */
class DeadlineWatcher {
  private head: DeadlineWatch | null = null;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;

  add(watch: DeadlineWatch): void {
    watch.prev = null;
    watch.next = this.head;
    if (this.head !== null) this.head.prev = watch;
    this.head = watch;
    if (watch.deadline < this.dueAt) this.arm(watch.deadline);
  }

  delete(watch: DeadlineWatch): void {
    if (watch.prev === undefined) return;
    if (watch.prev === null) this.head = watch.next ?? null;
    else watch.prev.next = watch.next ?? null;
    if (watch.next) watch.next.prev = watch.prev;
    watch.prev = watch.next = undefined;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(this.fire, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (let watch = this.head; watch !== null; ) {
      const following = watch.next ?? null;
      if (watch.deadline <= now) {
        this.delete(watch);
        watch.expire();
      } else if (watch.deadline < next) next = watch.deadline;
      watch = following;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  };
}

const watcher = new DeadlineWatcher();

/** A deadline that passed while waiting for a connection: nothing may start any more. */
export function checkNotPassed(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() >= deadline) throw timeLimitExceeded();
}
