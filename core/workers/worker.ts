/**
 * A worker's side of --workers: reports its metadata changes to the primary and waits until
 * every other worker has them (so the next request sees the change, whichever worker serves
 * it), and catches up with the changes other workers report.
 */
import cluster from 'node:cluster';
import type { Logger } from '../logger.js';
import type { MetadataPeers, MetadataService, PeerChange } from '../metadata/service.js';
import { isWorkerMessage, WORKER_ID_ENV, type WorkerMessage } from './messages.js';
import { processSharedState, type SharedState } from './shared-state.js';

/** How long a change waits for the other workers before answering anyway (they also poll). */
const RELAY_TIMEOUT_MS = 30_000;

export interface WorkerLink {
  /** 1..N; worker 1 runs the engine's background work. */
  readonly id: number;
  readonly peers: MetadataPeers;
  /** From now on changes are applied to `service`; those that arrived before are applied first. */
  attach(service: MetadataService, logger: Logger): Promise<void>;
  /** Called when the primary asks this worker to shut down, or goes away. */
  onShutdown(fn: (reason: string) => void): void;
  /** State shared through the primary: what this worker publishes, and what worker 1 published. */
  readonly sharedState: SharedState;
}

/** This process's link to its primary, or undefined when it is not a cluster worker. */
export function workerLink(): WorkerLink | undefined {
  if (!cluster.isWorker || typeof process.send !== 'function') return undefined;
  const send = (m: WorkerMessage): void => {
    if (process.connected) process.send!(m);
  };
  const id = Number(process.env[WORKER_ID_ENV] ?? cluster.worker?.id ?? 1);
  const waiting = new Map<number, () => void>();
  let seq = 0;
  let service: MetadataService | undefined;
  let logger: Logger | undefined;
  let early: Array<{ key: string; change: PeerChange }> = [];
  let shutdown: (reason: string) => void = () => process.exit(0);
  const sharedState = processSharedState((key, value) => send({ svc: 'state-published', key, value }));

  const apply = (key: string, change: PeerChange): Promise<void> =>
    service!
      .applyPeerChange(change)
      .catch((e: unknown) => logger?.error('schema-sync', { message: 'could not apply a metadata change of another worker', error: String(e) }))
      .finally(() => send({ svc: 'metadata-synced', key }));

  process.on('message', (m: unknown) => {
    if (!isWorkerMessage(m)) return;
    if (m.svc === 'metadata-relayed') {
      waiting.get(m.seq)?.();
    } else if (m.svc === 'metadata-sync') {
      if (service) void apply(m.key, m.change);
      else early.push({ key: m.key, change: m.change });
    } else if (m.svc === 'shutdown') {
      shutdown(m.reason);
    } else if (m.svc === 'state') {
      sharedState.received(m.key, m.value);
    }
  });
  // A worker that (re)starts gets the state published before it was listening.
  send({ svc: 'state-wanted' });
  // The primary is gone (killed): nothing would restart or stop this worker any more.
  process.on('disconnect', () => shutdown('the primary process exited'));

  return {
    id,
    peers: {
      changed(change) {
        return new Promise<void>((resolve) => {
          const n = ++seq;
          const timer = setTimeout(() => {
            waiting.delete(n);
            logger?.warn('schema-sync', { message: 'other workers did not confirm a metadata change in time; they catch up by polling', resource_version: change.resourceVersion });
            resolve();
          }, RELAY_TIMEOUT_MS);
          waiting.set(n, () => {
            clearTimeout(timer);
            waiting.delete(n);
            resolve();
          });
          send({ svc: 'metadata-changed', seq: n, change });
        });
      },
    },
    async attach(s, l) {
      logger = l;
      service = s;
      // Changes made while this worker was starting (the store it read may predate them), in
      // order: the service's mutex keeps them in the order they are applied here.
      const pending = early;
      early = [];
      await Promise.all(pending.map(({ key, change }) => apply(key, change)));
    },
    onShutdown(fn) {
      shutdown = fn;
    },
    sharedState,
  };
}
