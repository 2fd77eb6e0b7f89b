/**
 * State that the process running the engine's background work (worker 1 of --workers N, or the
 * single process) keeps for every worker to answer from, such as the source health checks'
 * report: worker 1 publishes a key's whole value; the primary keeps the last value of each key
 * and relays it to the other workers, and to a worker that (re)starts later. Without workers it
 * is a plain map in the process.
 */
import { asValue, type AwilixContainer } from 'awilix';

/** A value as it crosses the cluster's IPC channel (JSON). */
export type SharedValue = null | boolean | number | string | SharedValue[] | { [key: string]: SharedValue };

export interface SharedState {
  /** Replaces `key`'s value here and, under --workers, in every other worker. */
  publish(key: string, value: SharedValue): void;
  /** The last value published for `key` by this process or relayed from worker 1. */
  read(key: string): SharedValue | undefined;
}

/** The container key the engine registers its SharedState under. */
export const SHARED_STATE_KEY = 'sharedState';

/** The state of one process; `relay` also sends each published value on (a worker's link). */
export function processSharedState(relay?: (key: string, value: SharedValue) => void): SharedState & { received(key: string, value: SharedValue): void } {
  const values = new Map<string, SharedValue>();
  return {
    publish(key, value) {
      values.set(key, value);
      relay?.(key, value);
    },
    read: (key) => values.get(key),
    received(key, value) {
      values.set(key, value);
    },
  };
}

/**
 * The engine's shared state. A kernel started without the engine (createTestKernel) has none
 * registered: it gets one of its own process.
 */
export function engineSharedState(container: AwilixContainer): SharedState {
  if (!container.hasRegistration(SHARED_STATE_KEY)) container.register(SHARED_STATE_KEY, asValue(processSharedState()));
  return container.resolve<SharedState>(SHARED_STATE_KEY);
}
