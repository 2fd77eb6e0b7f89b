/**
 * Builds a running engine around the kernel: the plugins of the plugin config, the metadata store
 * a database plugin provides (`metadataStore` in the container; it owns the engine's database,
 * embedded or not), the schema cache, the HTTP server, the schema sync poll, and an orderly
 * shutdown. `serve` uses it; so do integration tests (with port 0).
 */
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asValue, type Resolver } from 'awilix';
import type { ServerConfig } from './config/types.js';
import { createLogger, type Logger } from './logger.js';
import { createKernel, type Kernel } from './kernel/kernel.js';
import { DEFAULT_PLUGIN_CONFIG, loadPlugins } from './kernel/loader.js';
import { METADATA_STORE_KEY, type MetadataStore } from './metadata/store.js';
import { MetadataService, schemaCacheBuilderDeps } from './metadata/service.js';
import { DATABASE_URL_ENV, defaultSourceOf, initialMetadata } from './metadata/defaults.js';
import { databaseKinds } from './db/registry.js';
import { BootError } from './errors.js';
import { SourceConnections } from './schema-cache/connections.js';
import { buildSchemaCache } from './schema-cache/builder.js';
import { SchemaCacheRef } from './schema-cache/ref.js';
import { createRequestListener, type RequestListeners } from './http/app.js';
import type { AnyPlugin } from './plugin.js';
import type { WorkerLink } from './workers/worker.js';
import { processSharedState, SHARED_STATE_KEY } from './workers/shared-state.js';

/** How long /healthz waits for the metadata database before reporting an outage. */
const HEALTH_TIMEOUT_MS = 2_000;

export interface EngineOptions {
  warnings?: readonly string[];
  logger?: Logger;
  /** Environment for `{from_env}` references; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Use these plugins instead of reading the plugin config (tests). */
  plugins?: { plugins: AnyPlugin[]; options?: Record<string, unknown> };
  /** This process is worker `worker.id` of --workers N (core/workers). */
  worker?: WorkerLink;
  /** Container values registered after the plugins, so they win (tests: a metadata store, a kind). */
  overrides?: Readonly<Record<string, unknown>>;
}

export interface Engine {
  readonly kernel: Kernel;
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  readonly ref: SchemaCacheRef;
  readonly service: MetadataService;
  readonly listener: RequestListeners;
  /** Stops accepting, drains in-flight requests (up to the graceful shutdown timeout), closes everything. */
  close(reason?: string): Promise<void>;
}

/**
 * The engine without its socket: the kernel, the metadata store, the schema cache, the metadata
 * service and the HTTP request listener. `startEngine` serves it on a port; tests may call the
 * listener directly (test/helpers/inject.ts).
 */
export interface EngineCore {
  readonly kernel: Kernel;
  readonly ref: SchemaCacheRef;
  readonly service: MetadataService;
  readonly listener: RequestListeners;
  /** Closes everything `bootEngine` opened, in reverse order. */
  dispose(): Promise<void>;
}

export async function bootEngine(config: ServerConfig, options: EngineOptions = {}): Promise<EngineCore & { logger: Logger }> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, enabledTypes: config.enabledLogTypes });
  for (const warning of options.warnings ?? []) logger.warn('startup', { kind: 'option', message: warning });

  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  if (config.databaseUrl) env[DATABASE_URL_ENV] = config.databaseUrl;

  const cleanups: Array<() => Promise<void>> = [];
  const dispose = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  };
  try {
    const loaded = options.plugins ?? (await loadPlugins(config.pluginConfig ?? DEFAULT_PLUGIN_CONFIG, config.enabledApis));
    const overrides: Record<string, Resolver<unknown>> = {};
    for (const [key, value] of Object.entries(options.overrides ?? {})) overrides[key] = asValue(value);
    const kernel = await createKernel({ plugins: loaded.plugins, pluginOptions: loaded.options, config, logger, env, overrides });
    cleanups.push(() => kernel.dispose());
    logger.info('startup', { kind: 'plugins', loaded: kernel.pluginIds, features: kernel.features.list() });

    const { container, hooks } = kernel;
    if (!container.hasRegistration(METADATA_STORE_KEY)) {
      throw new BootError('E_PLUGIN_DEPENDENCY_MISSING', 'no loaded plugin provides the metadata store (load a database plugin that owns the engine database)');
    }
    // The store belongs to the container: kernel.dispose() closes it (and the database it owns).
    const store = container.resolve<MetadataStore>(METADATA_STORE_KEY);
    const kinds = databaseKinds(container);
    const source = () => defaultSourceOf(kinds, config);
    await store.init(() => initialMetadata(source()));

    const connections = new SourceConnections();
    cleanups.push(() => connections.closeAll());
    const stored = await store.read();
    const cache = await buildSchemaCache(schemaCacheBuilderDeps({ container, hooks, config, connections }), stored.metadata, stored.resourceVersion);
    const ref = new SchemaCacheRef(cache);
    for (const o of cache.inconsistentObjects) logger.warn('metadata', { message: 'inconsistent object', object: o });
    const worker = options.worker;
    const service = new MetadataService({ store, ref, connections, container, hooks, config, logger, ...(worker ? { peers: worker.peers } : {}) });
    // Changes other workers made while this one was starting are applied before it serves.
    if (worker) await worker.attach(service, logger);
    container.register({
      schemaCacheRef: asValue(ref),
      sourceConnections: asValue(connections),
      metadataService: asValue(service),
      metadataDefaults: asValue({ defaultSource: source }),
      // For plugins that keep shared state beside the metadata (rate-limit counters without Redis).
      metadataDatabaseUrl: asValue(store.connectionString),
      // What worker 1's background work reports (source health), readable in every worker.
      [SHARED_STATE_KEY]: asValue(worker ? worker.sharedState : processSharedState()),
    });

    const listener = createRequestListener({
      config,
      hooks,
      logger,
      container,
      isMetadataConsistent: () => ref.current.inconsistentObjects.length === 0,
      // Which worker answered, for seeing the load spread (development only).
      ...(worker && config.devMode ? { workerHeader: String(worker.id) } : {}),
      ...(store.reachable ? { isMetadataStoreReachable: () => store.reachable!(HEALTH_TIMEOUT_MS) } : {}),
    });
    return { kernel, ref, service, listener, dispose, logger };
  } catch (e) {
    await dispose();
    throw e;
  }
}

export async function startEngine(config: ServerConfig, options: EngineOptions = {}): Promise<Engine> {
  const core = await bootEngine(config, options);
  const { kernel, ref, service, listener, logger } = core;
  const { hooks } = kernel;
  const worker = options.worker;
  const cleanups: Array<() => Promise<void>> = [() => core.dispose()];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  };
  try {
    const server = createServer(serverOptions(config), listener.request);
    server.on('upgrade', listener.upgrade);
    await listen(server, config.serverHost === '*' ? undefined : config.serverHost, config.serverPort);
    const port = (server.address() as AddressInfo).port;
    cleanups.push(() => closeServer(server, config.gracefulShutdownTimeout * 1000));

    let poll: NodeJS.Timeout | undefined;
    if (config.schemaSyncPollInterval > 0) {
      let busy = false;
      poll = setInterval(() => {
        if (busy) return;
        busy = true;
        service
          .syncFromStore()
          .catch((e: unknown) => logger.error('schema-sync', { message: 'schema sync failed', error: String(e) }))
          .finally(() => {
            busy = false;
          });
      }, config.schemaSyncPollInterval);
      poll.unref();
      cleanups.push(async () => clearInterval(poll));
    }

    logger.info('startup', { kind: 'server', message: `server listening on port ${port}`, port, host: config.serverHost });
    // Background work (event delivery, cron and scheduled events, async actions, cleanups) runs
    // once per engine: in worker 1 of --workers N.
    const background = worker === undefined || worker.id === 1;
    await hooks.onEvent.promise({ type: 'server.started', host: config.serverHost, port, background });

    let closing: Promise<void> | undefined;
    return {
      kernel,
      server,
      port,
      url: `http://127.0.0.1:${port}`,
      ref,
      service,
      listener,
      close(reason = 'shutdown requested') {
        closing ??= (async () => {
          logger.info('startup', { kind: 'shutdown', message: `shutting down: ${reason}` });
          await hooks.onEvent.promise({ type: 'shutdown.started', reason }).catch(() => {});
          await cleanup();
        })();
        return closing;
      },
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * Slow clients: a connection must deliver its headers within --http-headers-timeout and the whole
 * request within max(300 s, that); Node checks these only every `connectionsCheckingInterval`
 * (30 s by default), so a trickling client could hold its socket that much longer. A slow client
 * costs a socket and no more (the event loop never waits for it), so it cannot starve others.
 */
export function serverOptions(config: Pick<ServerConfig, 'httpHeadersTimeout'>): ServerOptions {
  const headersTimeout = config.httpHeadersTimeout;
  return { headersTimeout, requestTimeout: Math.max(300_000, headersTimeout), connectionsCheckingInterval: 1_000 };
}

function listen(server: Server, host: string | undefined, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      const where = `${host ?? '*'}:${port}`;
      if (e.code === 'EADDRINUSE') reject(new BootError('E_PORT_UNAVAILABLE', `port ${where} is already in use (--server-port)`, { cause: e }));
      else if (e.code === 'EACCES') reject(new BootError('E_PORT_UNAVAILABLE', `no permission to listen on ${where} (--server-port)`, { cause: e }));
      else if (e.code === 'EADDRNOTAVAIL') reject(new BootError('E_PORT_UNAVAILABLE', `address ${host ?? '*'} is not on this machine (--server-host)`, { cause: e }));
      else reject(e);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Stops accepting; in-flight requests may finish until the timeout, then connections are cut. */
function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    timer.unref();
    // Keep-alive connections go idle as their last response ends; close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
