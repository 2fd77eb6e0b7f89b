/**
 * What the primary and the workers of one engine (--workers) say to each other over the cluster's
 * IPC channel. A worker that changed the metadata reports it; the primary relays it to every other
 * worker and answers the first one once all of them have caught up (or exited). Shared state
 * (shared-state.ts) goes the same way, without confirmations: the primary keeps the last values.
 */
import type { PeerChange } from '../metadata/service.js';
import type { SharedValue } from './shared-state.js';

export type WorkerMessage =
  /** worker → primary: this worker installed a change (seq: its own counter). */
  | { svc: 'metadata-changed'; seq: number; change: PeerChange }
  /** primary → other workers: catch up with this change, then answer `metadata-synced` with `key`. */
  | { svc: 'metadata-sync'; key: string; change: PeerChange }
  | { svc: 'metadata-synced'; key: string }
  /** primary → the worker that made the change: every other worker has it. */
  | { svc: 'metadata-relayed'; seq: number }
  /** primary → workers: shut down (the primary got a signal). */
  | { svc: 'shutdown'; reason: string }
  /** worker → primary: a new value of shared state (shared-state.ts), for every other worker. */
  | { svc: 'state-published'; key: string; value: SharedValue }
  /** worker → primary, once at start: send me every shared value you hold. */
  | { svc: 'state-wanted' }
  /** primary → worker: the current value of one key of shared state. */
  | { svc: 'state'; key: string; value: SharedValue };

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  return typeof m === 'object' && m !== null && typeof (m as { svc?: unknown }).svc === 'string';
}

/** The environment variable that tells a worker its number (1..N, stable across restarts). */
export const WORKER_ID_ENV = 'SVC_GRAPHQL_WORKER_ID';

/** How many workers the engine runs (set by the primary for its workers; unset means 1). */
export const WORKER_COUNT_ENV = 'SVC_GRAPHQL_WORKER_COUNT';

/**
 * The number of processes this engine runs. Pools divide their connections by it, so that
 * `max_connections` (and --pg-connections) bound the whole engine, as with one process.
 */
export function engineWorkerCount(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[WORKER_COUNT_ENV] ?? 1);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}
