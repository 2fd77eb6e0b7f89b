/**
 * The primary process of --workers N: forks N workers (node:cluster; they share the port, the
 * primary hands out connections), relays metadata changes between them, restarts a worker that
 * dies after it started, keeps and relays worker 1's shared state (shared-state.ts), and on
 * SIGTERM/SIGINT asks every worker to shut down and waits.
 * The primary itself serves nothing and holds no database connection.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger.js';
import { isWorkerMessage, WORKER_COUNT_ENV, WORKER_ID_ENV, type WorkerMessage } from './messages.js';
import type { SharedValue } from './shared-state.js';

interface Relay {
  origin: number;
  seq: number;
  waiting: Set<number>;
}

export function runPrimary(count: number, logger: Logger): Promise<number> {
  const workers = new Map<number, Worker>();
  const listening = new Set<number>();
  const relays = new Map<string, Relay>();
  /** The last value of each key of shared state, for workers that start later. */
  const shared = new Map<string, SharedValue>();
  let stopping = false;
  let exitCode = 0;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const send = (slot: number, m: WorkerMessage): void => {
    const w = workers.get(slot);
    if (w?.isConnected()) w.send(m);
  };

  const settle = (key: string): void => {
    const r = relays.get(key);
    if (!r || r.waiting.size > 0) return;
    relays.delete(key);
    send(r.origin, { svc: 'metadata-relayed', seq: r.seq });
  };

  const onMessage = (slot: number, m: unknown): void => {
    if (!isWorkerMessage(m)) return;
    if (m.svc === 'metadata-changed') {
      const key = `${slot}:${m.seq}`;
      // Workers still starting catch up when they attach (they were sent the change too).
      const others = [...workers.keys()].filter((s) => s !== slot && workers.get(s)!.isConnected());
      relays.set(key, { origin: slot, seq: m.seq, waiting: new Set(others) });
      for (const s of others) send(s, { svc: 'metadata-sync', key, change: m.change });
      settle(key);
    } else if (m.svc === 'metadata-synced') {
      relays.get(m.key)?.waiting.delete(slot);
      settle(m.key);
    } else if (m.svc === 'state-published') {
      shared.set(m.key, m.value);
      for (const s of workers.keys()) if (s !== slot) send(s, { svc: 'state', key: m.key, value: m.value });
    } else if (m.svc === 'state-wanted') {
      for (const [key, value] of shared) send(slot, { svc: 'state', key, value });
    }
  };

  const stopAll = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    for (const slot of workers.keys()) send(slot, { svc: 'shutdown', reason });
    if (workers.size === 0) finish(exitCode);
  };

  const fork = (slot: number): void => {
    const w = cluster.fork({ [WORKER_ID_ENV]: String(slot), [WORKER_COUNT_ENV]: String(count) });
    workers.set(slot, w);
    w.on('message', (m: unknown) => onMessage(slot, m));
    w.on('listening', () => {
      listening.add(slot);
      if (listening.size === count) logger.info('startup', { kind: 'workers', message: `${count} workers serving`, workers: count });
    });
    w.on('exit', (code, signal) => {
      if (workers.get(slot) !== w) return;
      workers.delete(slot);
      // A worker gone is no longer waited for.
      for (const [key, r] of relays) {
        r.waiting.delete(slot);
        settle(key);
      }
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (workers.size === 0) finish(exitCode);
        return;
      }
      if (!listening.has(slot)) {
        // It never started (bad configuration, port in use): the others would fail alike.
        logger.error('startup', { kind: 'workers', message: `worker ${slot} exited before serving (code ${code ?? signal}); stopping` });
        exitCode = 1;
        stopAll(`worker ${slot} failed to start`);
        return;
      }
      logger.error('startup', { kind: 'workers', message: `worker ${slot} exited (code ${code ?? signal}); starting it again` });
      listening.delete(slot);
      fork(slot);
    });
  };

  logger.info('startup', { kind: 'workers', message: `starting ${count} workers`, workers: count, pid: process.pid });
  for (let slot = 1; slot <= count; slot++) fork(slot);
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) process.exit(1);
    signalled = true;
    stopAll(`received ${signal}`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return finished;
}
