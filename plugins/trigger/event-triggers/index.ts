/**
 * Event trigger metadata and capture. Operations: `<prefix>_create_event_trigger`,
 * `_delete_event_trigger`, `_redeliver_event`, `_invoke_event_trigger` for every database kind
 * that declares the event-trigger capability (the legacy unprefixed forms on /v1/query for pg_),
 * and `cleanup_event_trigger_logs`, `pause_event_trigger_cleanups`,
 * `resume_event_trigger_cleanups`. Capture triggers in the source databases follow the metadata
 * when a change is applied (`onMetadataApply`) and are checked at start-up (`onEvent`
 * server.started). Delivery is the trigger runner's job (trigger/event-trigger-runner).
 * Safe to disable: event trigger operations become unknown and captures stop being maintained.
 */
import {
  definePlugin,
  registerMetadataOperations,
  type ServerConfig,
  type Logger,
  type SchemaCacheRef,
} from '../../../core/sdk/index.js';
import { LEGACY_OPERATIONS, OPERATIONS } from './operations.js';
import { cleanupEventTriggerLogs, toggleCleanups } from './cleanup.js';
import { syncAll, syncOnApply } from './capture-sync.js';

const PLUGIN_ID = 'trigger/event-triggers';

export default definePlugin({
  name: 'event-triggers',
  kind: 'trigger',
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    registerMetadataOperations(hooks, PLUGIN_ID, {
      prefixed: OPERATIONS,
      legacy: LEGACY_OPERATIONS,
      requires: 'eventTriggers',
      unprefixed: {
        cleanup_event_trigger_logs: cleanupEventTriggerLogs,
        pause_event_trigger_cleanups: toggleCleanups(true),
        resume_event_trigger_cleanups: toggleCleanups(false),
      },
    });

    hooks.onMetadataApply.tapPromise(PLUGIN_ID, (apply) => syncOnApply(container, config, apply));
    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      // Once per engine (worker 1 of --workers): every worker would install the same captures.
      if (event.type !== 'server.started' || !event.background) return;
      const cache = container.resolve<SchemaCacheRef>('schemaCacheRef').current;
      await syncAll(container, config, cache).catch((e: unknown) =>
        logger.error('event-trigger', { message: 'could not bring capture triggers up to date at start-up', error: String(e) }),
      );
    });
  },
});
