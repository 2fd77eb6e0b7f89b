/**
 * The scheduled-trigger runner: generates cron events ahead and delivers due cron and one-off
 * events to their webhooks (runner.ts). Taps `onEvent`: starts on `server.started`, stops
 * gracefully on `shutdown.started` (in-flight deliveries finish within
 * --graceful-shutdown-timeout; the rest go back to scheduled). Options: `poolSize` (deliveries in
 * flight, default --events-http-pool-size), `batchSize` (events per claim, 100),
 * `fetchIntervalMs` (pause after a claim that did not fill a batch, 1000), `lockTimeoutSeconds`
 * (how long the claims of an engine that died block their events, 1800), `eventsAhead` (pending
 * events kept per cron trigger, 100), `generateIntervalSeconds` (how often cron triggers are topped
 * up, 60). Safe to disable: events wait for an engine that runs it (past their tolerance they die).
 */
import { definePlugin, OutgoingHttp, type Logger, type SchemaCacheRef, type ServerConfig } from '../../../core/sdk/index.js';
import { cronTriggersOfCache, envOf, scheduledEventStore, schedulerClock } from '../scheduled-triggers/context.js';
import { ScheduledTriggerRunner } from './runner.js';

const PLUGIN_ID = 'trigger/scheduled-trigger-runner';

export interface ScheduledRunnerPluginOptions {
  poolSize: number;
  batchSize: number;
  fetchIntervalMs: number;
  lockTimeoutSeconds: number;
  eventsAhead: number;
  generateIntervalSeconds: number;
}

export default definePlugin<ScheduledRunnerPluginOptions>({
  name: 'scheduled-trigger-runner',
  kind: 'trigger',
  provides: ['scheduled-triggers'],
  dependsOn: ['trigger/scheduled-triggers'],
  optionsSchema: {
    type: 'object',
    properties: {
      poolSize: { type: 'integer', minimum: 1, default: 100 },
      batchSize: { type: 'integer', minimum: 1, default: 100 },
      fetchIntervalMs: { type: 'integer', minimum: 1, default: 1000 },
      lockTimeoutSeconds: { type: 'integer', minimum: 1, default: 1800 },
      eventsAhead: { type: 'integer', minimum: 1, default: 100 },
      generateIntervalSeconds: { type: 'number', exclusiveMinimum: 0, default: 60 },
    },
    required: ['poolSize', 'batchSize', 'fetchIntervalMs', 'lockTimeoutSeconds', 'eventsAhead', 'generateIntervalSeconds'],
    additionalProperties: false,
  },
  optionsFromConfig: (config: ServerConfig) => ({ poolSize: config.eventsHttpPoolSize }),
  register(container, hooks, options) {
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    let runner: ScheduledTriggerRunner | undefined;
    let http: OutgoingHttp | undefined;

    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      // Workers 2..N of --workers only serve requests; worker 1 runs the schedules.
      if (event.type === 'server.started' && event.background) {
        let store;
        try {
          store = scheduledEventStore(container);
        } catch (e) {
          logger.warn('scheduled-trigger', { message: 'scheduled triggers are not delivered by this engine', error: String(e) });
          return;
        }
        await store.init().catch((e: unknown) => logger.error('scheduled-trigger', { message: 'could not create the scheduled event tables', error: String(e) }));
        http = new OutgoingHttp({ connectionsPerOrigin: options.poolSize });
        runner = new ScheduledTriggerRunner(
          {
            store,
            http,
            logger,
            clock: () => schedulerClock(container),
            triggers: () => cronTriggersOfCache(container, container.resolve<SchemaCacheRef>('schemaCacheRef').current),
            env: () => envOf(container),
          },
          {
            poolSize: options.poolSize,
            batchSize: options.batchSize,
            fetchIntervalMs: options.fetchIntervalMs,
            lockTimeoutSeconds: options.lockTimeoutSeconds,
            eventsAhead: options.eventsAhead,
            generateIntervalMs: options.generateIntervalSeconds * 1000,
            shutdownTimeoutMs: config.gracefulShutdownTimeout * 1000,
          },
        );
        runner.start();
      } else if (event.type === 'shutdown.started') {
        await runner?.stop();
        await http?.close();
        runner = undefined;
        http = undefined;
      }
    });
  },
});
