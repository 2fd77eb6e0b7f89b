/**
 * The `serve` command: start the engine and shut it down cleanly on SIGTERM/SIGINT (a second
 * signal forces the exit). With --workers N > 1 this process becomes the primary of N worker
 * processes (core/workers), each of which runs this command again as a worker.
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { ServerConfig } from './config/types.js';
import { BootError } from './errors.js';
import { startEngine } from './engine.js';
import { createLogger } from './logger.js';
import { runPrimary } from './workers/primary.js';
import { workerLink } from './workers/worker.js';

/**
 * --workers, or its default: every core in production, one process otherwise. The embedded
 * database (no database URL at all) lives in one process's memory behind a lock file, so it
 * serves one process: the default is then 1, and asking for more is refused.
 */
export function workerCount(config: Pick<ServerConfig, 'workers' | 'databaseUrl' | 'metadataDatabaseUrl'>, env: NodeJS.ProcessEnv = process.env): number {
  const embedded = !config.databaseUrl && !config.metadataDatabaseUrl;
  if (embedded && config.workers !== undefined && config.workers > 1) {
    throw new BootError(
      'E_OPTION_INVALID',
      `--workers ${config.workers} (SVC_GRAPHQL_WORKERS) needs a database URL: the embedded database serves one process (give --database-url, or use --workers 1)`,
    );
  }
  if (embedded) return 1;
  return config.workers ?? (env['NODE_ENV'] === 'production' ? availableParallelism() : 1);
}

export async function serve(config: ServerConfig, opts: { warnings: string[] }): Promise<void> {
  const count = workerCount(config);
  if (count > 1 && cluster.isPrimary) {
    const logger = createLogger({ level: config.logLevel, enabledTypes: config.enabledLogTypes });
    for (const warning of opts.warnings) logger.warn('startup', { kind: 'option', message: warning });
    process.exit(await runPrimary(count, logger));
  }
  const link = workerLink();
  // Worker 1 runs the background work; the others only serve requests (and their own websockets).
  const engine = await startEngine(config, { warnings: link ? [] : opts.warnings, ...(link ? { worker: link } : {}) });
  let stopping = false;
  const stop = (reason: string, force: boolean) => {
    if (stopping) {
      if (force) process.exit(1);
      return;
    }
    stopping = true;
    engine.close(reason).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  link?.onShutdown((reason) => stop(reason, false));
  // A worker gets a terminal's Ctrl-C and the primary's shutdown message, in either order: only a
  // single process forces its exit on a second signal (the primary does for its workers).
  process.on('SIGTERM', () => stop('received SIGTERM', !link));
  process.on('SIGINT', () => stop('received SIGINT', !link));
}
