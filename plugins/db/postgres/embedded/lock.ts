/**
 * An exclusive lock on the embedded database's data directory. PGlite itself does not guard its
 * directory (its postmaster.pid always holds the fake pid -42 and is never checked), so two
 * processes opening the same directory silently lose each other's writes.
 *
 * The lock is a file created atomically with `open(path, 'wx')` and holding the owner's pid. A lock
 * whose pid is no longer alive is stale (the owner crashed or was killed) and is taken over.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

import { BootError } from '../../../../core/sdk/index.js';

export const LOCK_FILE_NAME = 'svc-graphql-engine.lock';

export type EmbeddedLogLevel = 'info' | 'warn' | 'error';
export type EmbeddedLog = (level: EmbeddedLogLevel, message: string, detail?: Record<string, unknown>) => void;

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Distinguishes two owners with the same pid (a restarted container reuses pid 1). */
  token: string;
}

export interface DataDirLock {
  readonly lockPath: string;
  readonly owner: LockOwner;
  /** Removes the lock file if it is still ours; idempotent. */
  release(): Promise<void>;
}

/**
 * Lock paths held by this process. Needed because a pid check cannot tell "this process already
 * holds the lock" from "a previous incarnation with our pid left it behind".
 */
const heldByThisProcess = new Set<string>();

const MAX_ATTEMPTS = 5;
/** How long to wait for an owner that has created the lock file but not yet written its pid. */
const UNWRITTEN_LOCK_GRACE_MS = 500;

export async function acquireDataDirLock(dataDir: string, log?: EmbeddedLog): Promise<DataDirLock> {
  const dir = path.resolve(dataDir);
  const lockPath = path.join(dir, LOCK_FILE_NAME);
  // Keyed by the real path: two spellings of one directory must not both get the lock.
  let key: string;
  try {
    key = path.join(await fs.realpath(dir), LOCK_FILE_NAME);
  } catch (e) {
    throw new BootError('E_DATABASE_UNAVAILABLE', `could not open the data directory ${dir}: ${describe(e)}`, {
      cause: e,
    });
  }
  if (heldByThisProcess.has(key)) {
    throw lockedError(dir, lockPath, process.pid, 'this process');
  }
  // Reserved before the next await so that a concurrent start in this process fails above
  // instead of mistaking our fresh lock (our own pid) for a leftover.
  heldByThisProcess.add(key);
  try {
    const lock = await acquire(dir, lockPath, log);
    let released: Promise<void> | undefined;
    return {
      ...lock,
      release: () =>
        (released ??= lock.release().finally(() => {
          heldByThisProcess.delete(key);
        })),
    };
  } catch (e) {
    heldByThisProcess.delete(key);
    throw e;
  }
}

async function acquire(dir: string, lockPath: string, log: EmbeddedLog | undefined): Promise<DataDirLock> {
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  const content = `${JSON.stringify(owner)}\n`;

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await tryCreate(lockPath, content)) {
      return makeLock(lockPath, owner, content, log);
    }
    const existing = await readExisting(lockPath);
    if (existing === undefined) continue; // released between our create and our read
    const holder = existing.owner;
    if (holder !== undefined && isAlive(holder.pid)) {
      throw lockedError(dir, lockPath, holder.pid, `on host ${holder.hostname}`);
    }
    if (await takeOver(lockPath, existing.raw)) {
      log?.('warn', `taking over the stale lock on the embedded database directory ${dir}`, {
        lockPath,
        stalePid: holder?.pid ?? null,
        staleHost: holder?.hostname ?? null,
        staleSince: holder?.startedAt ?? null,
      });
    }
  }
  throw new BootError(
    'E_DATA_DIR_LOCKED',
    `could not lock the embedded database directory ${dir}: ${lockPath} kept changing while other processes competed for it`,
  );
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(lockPath, 'wx');
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return false;
    throw new BootError('E_DATABASE_UNAVAILABLE', `could not create the lock file ${lockPath}: ${describe(e)}`, {
      cause: e,
    });
  }
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fs.unlink(lockPath).catch(() => undefined);
    throw new BootError('E_DATABASE_UNAVAILABLE', `could not write the lock file ${lockPath}: ${describe(e)}`, {
      cause: e,
    });
  }
  await handle.close();
  return true;
}

interface ExistingLock {
  raw: string;
  /** Undefined when the content is not a lock we can read (empty, truncated, foreign). */
  owner: LockOwner | undefined;
}

async function readExisting(lockPath: string): Promise<ExistingLock | undefined> {
  const deadline = Date.now() + UNWRITTEN_LOCK_GRACE_MS;
  for (;;) {
    let raw: string;
    try {
      raw = await fs.readFile(lockPath, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      throw new BootError('E_DATABASE_UNAVAILABLE', `could not read the lock file ${lockPath}: ${describe(e)}`, {
        cause: e,
      });
    }
    const owner = parseOwner(raw);
    // An empty or half-written file usually means a competitor is between its create and its
    // write; give it a moment before judging the file abandoned.
    if (owner !== undefined || Date.now() >= deadline) return { raw, owner };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v !== 'object' || v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (typeof o.pid !== 'number' || !Number.isInteger(o.pid) || o.pid <= 0) return undefined;
    return {
      pid: o.pid,
      hostname: typeof o.hostname === 'string' ? o.hostname : 'unknown host',
      startedAt: typeof o.startedAt === 'string' ? o.startedAt : 'unknown',
      token: typeof o.token === 'string' ? o.token : '',
    };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  // Our own pid is a leftover from an earlier process with the same pid (containers restart as
  // pid 1): the reservation in acquireDataDirLock rules out another holder in this process.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to another user, so it is alive.
    return errnoCode(e) === 'EPERM';
  }
}

/**
 * Moves a stale lock aside rather than unlinking it, so that when two processes take over the same
 * stale lock at once, the one that moved a fresh lock by mistake can see it and put it back.
 * Returns whether the stale lock was removed by us.
 */
async function takeOver(lockPath: string, staleRaw: string): Promise<boolean> {
  const aside = `${lockPath}.stale-${process.pid}-${randomUUID()}`;
  try {
    await fs.rename(lockPath, aside);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw new BootError('E_DATABASE_UNAVAILABLE', `could not remove the stale lock file ${lockPath}: ${describe(e)}`, {
      cause: e,
    });
  }
  let moved: string | undefined;
  try {
    moved = await fs.readFile(aside, 'utf8');
  } catch {
    moved = undefined;
  }
  if (moved !== undefined && moved !== staleRaw) {
    // Another process replaced the stale lock between our read and our rename: restore its lock.
    // link() fails if yet another lock appeared meanwhile, which is then the valid one.
    await fs.link(aside, lockPath).catch(() => undefined);
    await fs.unlink(aside).catch(() => undefined);
    return false;
  }
  await fs.unlink(aside).catch(() => undefined);
  return true;
}

function makeLock(lockPath: string, owner: LockOwner, content: string, log?: EmbeddedLog): DataDirLock {
  let released: Promise<void> | undefined;
  return {
    lockPath,
    owner,
    release() {
      released ??= (async () => {
        let current: string;
        try {
          current = await fs.readFile(lockPath, 'utf8');
        } catch (e) {
          if (errnoCode(e) !== 'ENOENT') {
            log?.('warn', `could not read the lock file ${lockPath} to release it`, { error: describe(e) });
          }
          return;
        }
        if (current !== content) {
          log?.('warn', `the lock file ${lockPath} was replaced by another process; leaving it in place`, {
            holder: parseOwner(current) ?? null,
          });
          return;
        }
        await fs.unlink(lockPath).catch((e: unknown) => {
          if (errnoCode(e) !== 'ENOENT') {
            log?.('warn', `could not remove the lock file ${lockPath}`, { error: describe(e) });
          }
        });
      })();
      return released;
    },
  };
}

function lockedError(dir: string, lockPath: string, pid: number, holder: string): BootError {
  return new BootError(
    'E_DATA_DIR_LOCKED',
    `the embedded database directory ${dir} is in use by process ${pid} (${holder}); ` +
      `stop that process or choose another data directory. If no such process exists, remove ${lockPath}`,
  );
}

function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A readable description of anything thrown, including the non-Error values Emscripten throws. */
export function describe(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'object' && e !== null) {
    const o = e as Record<string, unknown>;
    const parts = [o.name, o.message, o.errno === undefined ? undefined : `errno ${String(o.errno)}`].filter(
      (p): p is string => typeof p === 'string' && p.length > 0,
    );
    if (parts.length > 0) return parts.join(': ');
  }
  return String(e);
}
