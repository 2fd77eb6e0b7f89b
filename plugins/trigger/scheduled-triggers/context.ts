/**
 * What the scheduled-trigger plugins share through the container: the event store (created
 * lazily on the metadata database), the clock (system time unless a test registers a faster
 * one as `scheduledTriggerClock`) and the resolved cron triggers of a snapshot.
 */
import { asValue, type AwilixContainer, type EnvLookup, type SchemaCache } from '../../../core/sdk/index.js';
import { catalogDatabase } from '../../db/postgres/catalog-table-store.js';
import { PgScheduledEventStore } from './pg-store.js';
import type { ScheduledEventStore } from './store.js';
import { cronTriggersResolver, type ResolvedCronTriggers } from './resolve.js';

export interface SchedulerClock {
  now(): Date;
}

export const SYSTEM_CLOCK: SchedulerClock = { now: () => new Date() };
export const CLOCK_KEY = 'scheduledTriggerClock';
const STORE_KEY = 'scheduledEventStore';
const RESOLVER_KEY = 'scheduledCronTriggers';

export function schedulerClock(container: AwilixContainer): SchedulerClock {
  return container.hasRegistration(CLOCK_KEY) ? container.resolve<SchedulerClock>(CLOCK_KEY) : SYSTEM_CLOCK;
}

export function registerScheduledServices(container: AwilixContainer): void {
  let store: ScheduledEventStore | undefined;
  container.register(STORE_KEY, asValue({
    get(): ScheduledEventStore {
      store ??= new PgScheduledEventStore(catalogDatabase(container, 'scheduled triggers'));
      return store;
    },
    async close(): Promise<void> {
      await store?.close();
      store = undefined;
    },
  }));
  const env = (): EnvLookup => (container.hasRegistration('env') ? container.resolve<EnvLookup>('env') : process.env);
  container.register(RESOLVER_KEY, asValue(cronTriggersResolver(env)));
}

export function scheduledEventStore(container: AwilixContainer): ScheduledEventStore {
  return container.resolve<{ get(): ScheduledEventStore }>(STORE_KEY).get();
}

export async function closeScheduledEventStore(container: AwilixContainer): Promise<void> {
  await container.resolve<{ close(): Promise<void> }>(STORE_KEY).close();
}

export function cronTriggersOfCache(container: AwilixContainer, cache: SchemaCache): ResolvedCronTriggers {
  return container.resolve<(c: SchemaCache) => ResolvedCronTriggers>(RESOLVER_KEY)(cache);
}

export function envOf(container: AwilixContainer): EnvLookup {
  return container.hasRegistration('env') ? container.resolve<EnvLookup>('env') : process.env;
}
