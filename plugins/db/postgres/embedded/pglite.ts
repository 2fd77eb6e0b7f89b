/**
 * The embedded default database: PGlite (PostgreSQL 18 compiled to WASM) running in this process,
 * served on a loopback TCP port by @electric-sql/pglite-socket so that the engine's ordinary `pg`
 * code path talks to it exactly as to a real server.
 *
 * PGlite is ONE PostgreSQL backend: every TCP connection is multiplexed onto the same session.
 * pglite-socket queues protocol messages from all sockets into that session and keeps an explicit
 * transaction's owner exclusive, but session state (prepared statements, SET, temp tables,
 * advisory locks, LISTEN) is shared, and the messages of one extended-protocol query from one
 * client can be interleaved with another client's (a Parse from client B replaces client A's
 * unnamed statement before A's Bind). Hence a pool of exactly one connection.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';

import { PGlite, type ExecProtocolOptionsStream } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

import { BootError, isBootError } from '../../../../core/sdk/index.js';
import { LOCK_FILE_NAME, acquireDataDirLock, describe, type DataDirLock, type EmbeddedLog } from './lock.js';

export type { EmbeddedLog, EmbeddedLogLevel } from './lock.js';

/**
 * The only safe `pg.Pool` size (`max`) for the embedded database, for ALL pools together: the
 * metadata store and the `default` source must share one pool. See the module comment for why.
 * Also do not use a second connection while holding a transaction open on the first: the second
 * one's queries wait for that transaction to end, so the engine would deadlock on itself.
 */
export const EMBEDDED_MAX_CONNECTIONS = 1;

/**
 * Sockets the server accepts at once. More than the pool size because a pool replaces a discarded
 * client before the server has seen the old socket close (with a limit of 1, pg.Pool reconnects
 * after `release(err)` fail every time), and so that an operator's psql can still get in.
 */
const SOCKET_LIMIT = 4;

/** How long a new connection waits for a closing one to go before sharing the session with it. */
const CLOSING_SOCKET_GRACE_MS = 100;

/** A client that ignores the server's FIN must not hang shutdown forever. */
const SOCKET_CLOSE_TIMEOUT_MS = 5_000;

/** The PostgreSQL major version of the pinned PGlite (0.5.14); the integration test checks it. */
export const EMBEDDED_PG_MAJOR = '18';

const HOST = '127.0.0.1';
/** PGlite ignores the user and database named in the startup packet and always answers as these. */
const USER = 'postgres';
const DATABASE = 'postgres';

export interface EmbeddedPostgresOptions {
  /** Directory holding the database files; created if missing, reused across restarts. */
  dataDir: string;
  log?: EmbeddedLog;
}

export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`; no password is asked. */
  readonly url: string;
  /** The absolute data directory. */
  readonly dataDir: string;
  /**
   * Closes the socket server (dropping any connections still open), then PGlite, which flushes
   * the data, then releases the directory lock. Idempotent. End the engine's pg pools first, or
   * their idle clients will see their connection terminated.
   */
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log: EmbeddedLog = opts.log ?? (() => undefined);
  if (typeof opts.dataDir !== 'string' || opts.dataDir.trim() === '') {
    // path.resolve('') is the working directory, which would fill it with database files.
    throw new BootError('E_OPTION_INVALID', 'the embedded database needs a data directory; none was given');
  }
  const dataDir = path.resolve(opts.dataDir);

  try {
    await fs.mkdir(dataDir, { recursive: true });
  } catch (e) {
    throw unavailable(`could not create the data directory ${dataDir}: ${describe(e)}`, e);
  }
  const lock = await acquireDataDirLock(dataDir, log);

  let db: EmbeddedPGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  try {
    const fresh = await checkDataDir(dataDir);
    const startedAt = performance.now();
    db = new EmbeddedPGlite({ dataDir });
    await db.waitReady;
    const dbReadyMs = Math.round(performance.now() - startedAt);

    const socketServer = new PGLiteSocketServer({ db, host: HOST, port: 0, maxConnections: SOCKET_LIMIT });
    server = socketServer;
    db.connectedSockets = () => socketServer.getStats().activeConnections;
    db.embeddedLog = log;
    socketServer.addEventListener('error', (event) => {
      log('error', 'embedded PostgreSQL socket server error', { error: describe((event as CustomEvent).detail) });
    });
    await socketServer.start();
    const port = portOf(socketServer.getServerConn());
    const url = `postgres://${USER}@${HOST}:${port}/${DATABASE}`;

    log('info', `embedded PostgreSQL ${fresh ? 'initialised' : 'started'} in ${dataDir}`, {
      dataDir,
      url,
      created: fresh,
      startMs: dbReadyMs,
    });
    return handle(url, dataDir, socketServer, db, lock, log);
  } catch (e) {
    await server?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await lock.release();
    if (isBootError(e)) throw e;
    throw unavailable(`could not start the embedded PostgreSQL in ${dataDir}: ${describe(e)}`, e);
  }
}

function handle(
  url: string,
  dataDir: string,
  server: PGLiteSocketServer,
  db: PGlite,
  lock: DataDirLock,
  log: EmbeddedLog,
): EmbeddedPostgres {
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    const failures: unknown[] = [];
    try {
      const closed = await withTimeout(server.stop(), SOCKET_CLOSE_TIMEOUT_MS);
      if (!closed) {
        log('warn', 'embedded PostgreSQL: clients did not close their connections in time; closing the database anyway', {
          timeoutMs: SOCKET_CLOSE_TIMEOUT_MS,
        });
      }
    } catch (e) {
      failures.push(e);
      log('error', 'embedded PostgreSQL: stopping the socket server failed', { error: describe(e) });
    }
    try {
      await db.close();
    } catch (e) {
      failures.push(e);
      log('error', 'embedded PostgreSQL: closing the database failed; it will recover from its WAL on next start', {
        error: describe(e),
      });
    }
    // Released even after a failure: this process no longer uses the directory.
    await lock.release();
    if (failures.length > 0) {
      throw new Error(`the embedded PostgreSQL in ${dataDir} did not stop cleanly: ${describe(failures[0])}`, {
        cause: failures[0],
      });
    }
    log('info', 'embedded PostgreSQL stopped', { dataDir });
  };
  return {
    url,
    dataDir,
    stop: () => (stopping ??= stop()),
  };
}

/**
 * PGlite, plus a session reset when a client connects. A fresh `pg` client knows none of the
 * prepared statements the single backend still holds from the previous connection, so after the
 * pool replaces a client (idle timeout, error) its named queries fail with "prepared statement
 * already exists". Resetting the session when a connection starts gives each connection a fresh
 * session as in real PostgreSQL — but only when it is the sole connection, or the reset would
 * wipe state a live connection relies on.
 */
class EmbeddedPGlite extends PGlite {
  connectedSockets: () => number = () => 1;
  embeddedLog: EmbeddedLog = () => undefined;

  override async execProtocolRawStream(message: Uint8Array, options: ExecProtocolOptionsStream): Promise<void> {
    // pglite-socket hands every message of every socket to this method, inside the PGlite query
    // mutex; a startup packet is the first message of a new connection.
    if (isStartupPacket(message)) await this.#resetSessionForNewClient();
    return super.execProtocolRawStream(message, options);
  }

  async #resetSessionForNewClient(): Promise<void> {
    const deadline = Date.now() + CLOSING_SOCKET_GRACE_MS;
    while (this.connectedSockets() > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const clients = this.connectedSockets();
    if (clients > 1) {
      this.embeddedLog('warn', 'a client connected to the embedded PostgreSQL while another is connected; they share one session', {
        connections: clients,
      });
      return;
    }
    const chunks: Uint8Array[] = [];
    await super.execProtocolRawStream(DISCARD_ALL, { onRawData: (data) => chunks.push(data) });
    const error = errorMessageIn(Buffer.concat(chunks));
    if (error !== undefined) {
      this.embeddedLog('warn', 'could not reset the embedded PostgreSQL session for a new connection', { error });
    }
  }
}

/** A simple-protocol Query message. DISCARD ALL also drops temp tables, advisory locks and LISTENs. */
const DISCARD_ALL = simpleQuery('DISCARD ALL');

function simpleQuery(sql: string): Uint8Array {
  const body = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + body.length);
  message.write('Q', 0, 'latin1');
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return new Uint8Array(message);
}

/** Startup packets have no type byte; their length (under 16 MiB) puts a 0 where the type would be. */
function isStartupPacket(message: Uint8Array): boolean {
  return message.length >= 8 && message[0] === 0;
}

/** The text of the first ErrorResponse in a backend message stream, if any. */
function errorMessageIn(data: Buffer): string | undefined {
  let offset = 0;
  while (offset + 5 <= data.length) {
    const type = String.fromCharCode(data[offset]!);
    const end = offset + 1 + data.readInt32BE(offset + 1);
    if (type === 'E') {
      // Fields are a type byte then a NUL-terminated string; 'M' is the primary message.
      let field = offset + 5;
      while (field < end && data[field] !== 0) {
        const stop = data.indexOf(0, field + 1);
        if (stop < 0 || stop > end) break;
        if (data[field] === 'M'.charCodeAt(0)) return data.toString('utf8', field + 1, stop);
        field = stop + 1;
      }
      return 'unknown error';
    }
    offset = end;
  }
  return undefined;
}

/**
 * Returns whether the directory is new. Refuses a non-empty directory that is not a PostgreSQL data
 * directory: initialising there would scatter database files among someone else's.
 */
async function checkDataDir(dataDir: string): Promise<boolean> {
  const versionFile = path.join(dataDir, 'PG_VERSION');
  if (existsSync(versionFile)) {
    // Checked here because PGlite reports another major version's data only as "PGlite failed to
    // initialize properly".
    const version = (await fs.readFile(versionFile, 'utf8')).trim();
    if (version !== EMBEDDED_PG_MAJOR) {
      throw unavailable(
        `the data directory ${dataDir} holds PostgreSQL ${version} data, but the embedded PostgreSQL is ` +
          `version ${EMBEDDED_PG_MAJOR} and cannot open it; migrate it with pg_dump/pg_restore or use another directory`,
      );
    }
    return false;
  }
  const others = (await fs.readdir(dataDir)).filter((name) => !name.startsWith(LOCK_FILE_NAME));
  if (others.length > 0) {
    throw unavailable(
      `the data directory ${dataDir} is not empty and is not a PostgreSQL data directory (no PG_VERSION); ` +
        'give an empty or new directory',
    );
  }
  return true;
}

function portOf(serverConn: string): number {
  const port = Number(serverConn.slice(serverConn.lastIndexOf(':') + 1));
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(`the socket server reported no port (${serverConn})`);
  }
  return port;
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(message: string, cause?: unknown): BootError {
  return new BootError('E_DATABASE_UNAVAILABLE', message, cause === undefined ? undefined : { cause });
}
