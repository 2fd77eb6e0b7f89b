/**
 * Scheduled triggers as metadata and operations (Document 2 §2.3, §4.3, §6; reference notes §4):
 * cron triggers in the metadata's `cron_triggers` and one-off scheduled events in the event store
 * (`svc_catalog` of the metadata database, pg-store.ts). Taps `onMetadataOperation` (the
 * operations in operations.ts, on /v1/metadata and /v1/query), `onSchemaCacheBuild` (cron
 * triggers that cannot run, such as an unset environment variable, are inconsistent objects
 * `cron_trigger <name>`), `onMetadataApply` (once the change is committed, pending events of
 * deleted or changed triggers are deleted and new ones generated) and `onEvent`
 * (`shutdown.started` closes the store). Delivery is trigger/scheduled-trigger-runner's job. Safe to disable: the operations become unknown.
 */
import {
  definePlugin,
  inconsistencyDroppers,
  registerMetadataOperations,
  Stage,
} from '../../../core/sdk/index.js';
import { SCHEDULED_TRIGGER_OPERATIONS } from './operations.js';
import { closeScheduledEventStore, cronTriggersOfCache, registerScheduledServices, scheduledEventStore, schedulerClock } from './context.js';
import { cronChange, DEFAULT_EVENTS_AHEAD, topUpCronEvents } from './events.js';

const PLUGIN_ID = 'trigger/scheduled-triggers';

export default definePlugin({
  name: 'scheduled-triggers',
  kind: 'trigger',
  // Scheduled and one-off events live in the metadata database, which db/postgres owns (pg-store.ts).
  dependsOn: ['db/postgres'],
  register(container, hooks) {
    registerScheduledServices(container);
    registerMetadataOperations(hooks, PLUGIN_ID, {
      unprefixed: SCHEDULED_TRIGGER_OPERATIONS,
      endpoints: { unprefixed: ['metadata', 'query'] },
    });
    inconsistencyDroppers(container).set('cron_trigger', (draft, o) => {
      const name = o.name.replace(/^cron_trigger /, '');
      draft.cron_triggers = (draft.cron_triggers ?? []).filter((t) => t['name'] !== name);
      if (draft.cron_triggers.length === 0) delete draft.cron_triggers;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      for (const problem of cronTriggersOfCache(container, build.cache).problems) build.addInconsistency(problem);
    });
    // After the commit: a change refused by the metadata store (a concurrent write) must leave
    // the events as they were. A failure here is made good by the runner's top-up.
    hooks.onMetadataApply.tap(PLUGIN_ID, (apply) => {
      const change = cronChange(apply);
      if (change.dropped.length === 0 && change.added.length === 0) return;
      apply.afterCommit(async () => {
        const resolved = cronTriggersOfCache(container, apply.next).triggers;
        const added = new Map([...resolved].filter(([name]) => change.added.includes(name)));
        const names = [...new Set([...change.dropped, ...added.keys()])];
        await scheduledEventStore(container).withCronTriggers(names, async (tx) => {
          await tx.dropPending(change.dropped);
          await topUpCronEvents(tx, added, schedulerClock(container).now(), DEFAULT_EVENTS_AHEAD);
        });
      });
    });
    // Last, so the runner has recorded its in-flight outcomes before the store closes.
    hooks.onEvent.tapPromise({ name: PLUGIN_ID, stage: Stage.LAST }, async (event) => {
      if (event.type === 'shutdown.started') await closeScheduledEventStore(container);
    });
  },
});
