/**
 * The event trigger runner: delivers captured events to their webhooks (runner.ts) and runs the
 * scheduled event-log cleaners (cleaners.ts). Taps `onEvent`: starts on `server.started`, follows
 * `schema-cache.rebuilt`, stops gracefully on `shutdown.started` (in-flight deliveries finish
 * within --graceful-shutdown-timeout, the rest return to pending). Options come from
 * --events-http-pool-size, --events-fetch-batch-size, --events-fetch-interval; `lockTimeoutSeconds`
 * (plugin option, default 1800 as in the reference) is how long a claim by an engine that died
 * blocks its events. Safe to disable: events are still captured and wait for an engine that runs it.
 */
import {
  definePlugin,
  findDatabaseKind,
  OutgoingHttp,
  type MetricsRegistry,
  type ServerConfig,
  type Logger,
  type SchemaCacheRef,
} from '../../../core/sdk/index.js';
import { EventTriggerRunner } from './runner.js';
import { ScheduledCleaners } from './cleaners.js';

const PLUGIN_ID = 'trigger/event-trigger-runner';

export interface RunnerPluginOptions {
  poolSize: number;
  batchSize: number;
  fetchIntervalMs: number;
  lockTimeoutSeconds: number;
}

export default definePlugin<RunnerPluginOptions>({
  name: 'event-trigger-runner',
  kind: 'trigger',
  // The --events-* options mean something only while this plugin delivers events.
  provides: ['event-triggers'],
  dependsOn: ['trigger/event-triggers'],
  optionsSchema: {
    type: 'object',
    properties: {
      poolSize: { type: 'integer', minimum: 1, default: 100 },
      batchSize: { type: 'integer', minimum: 1, default: 100 },
      fetchIntervalMs: { type: 'integer', minimum: 1, default: 1000 },
      lockTimeoutSeconds: { type: 'integer', minimum: 1, default: 1800 },
    },
    required: ['poolSize', 'batchSize', 'fetchIntervalMs', 'lockTimeoutSeconds'],
    additionalProperties: false,
  },
  optionsFromConfig: (config: ServerConfig) => ({
    poolSize: config.eventsHttpPoolSize,
    batchSize: config.eventsFetchBatchSize,
    ...(config.eventsFetchInterval !== undefined ? { fetchIntervalMs: Math.max(1, config.eventsFetchInterval) } : {}),
  }),
  register(container, hooks, options) {
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    const support = (kind: string) => findDatabaseKind(container, kind)?.eventTriggers;
    let runner: EventTriggerRunner | undefined;
    let http: OutgoingHttp | undefined;
    const cleaners = new ScheduledCleaners(support, logger);
    const cache = () => container.resolve<SchemaCacheRef>('schemaCacheRef').current;

    const stop = async () => {
      cleaners.stopAll();
      await runner?.stop();
      await http?.close();
      runner = undefined;
      http = undefined;
    };

    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      switch (event.type) {
        case 'server.started':
          // Workers 2..N of --workers only serve requests; worker 1 delivers.
          if (!event.background) return;
          http = new OutgoingHttp({ connectionsPerOrigin: options.poolSize });
          runner = new EventTriggerRunner(
            { cache, support, http, logger, metrics: container.resolve<MetricsRegistry>('metrics') },
            { ...options, shutdownTimeoutMs: config.gracefulShutdownTimeout * 1000 },
          );
          runner.start();
          cleaners.follow(cache());
          return;
        case 'schema-cache.rebuilt':
          if (runner) cleaners.follow(event.cache);
          return;
        case 'shutdown.started':
          await stop();
          return;
        default:
          return;
      }
    });
  },
});
