/**
 * Cron events follow the metadata. When a change is applied, the pending events of cron triggers
 * that were deleted or whose definition changed are deleted, and new or changed triggers get
 * their next occurrences at once (as the reference generates them on create). The runner tops
 * every trigger up to `ahead` pending events as time passes (`topUpCronEvents`).
 */
import type { CronSchedule, MetadataApplyContext } from '../../../core/sdk/index.js';
import type { CronEventsTx } from './store.js';

/** Pending events kept per cron trigger (the reference keeps 100). */
export const DEFAULT_EVENTS_AHEAD = 100;

const byName = (list: readonly Record<string, unknown>[] | undefined): Map<string, string> =>
  new Map((list ?? []).map((t) => [String(t['name']), JSON.stringify(t)] as const));

export interface CronChange {
  /** Pending events to delete (deleted or changed triggers). */
  dropped: string[];
  /** Triggers to generate events for now (new or changed). */
  added: string[];
}

export function cronChange(apply: Pick<MetadataApplyContext, 'previous' | 'next'>): CronChange {
  const before = byName(apply.previous.metadata.cron_triggers);
  const after = byName(apply.next.metadata.cron_triggers);
  const dropped = [...before].filter(([name, def]) => after.get(name) !== def).map(([name]) => name);
  const added = [...after].filter(([name, def]) => before.get(name) !== def).map(([name]) => name);
  return { dropped, added };
}

/** Adds occurrences so that each trigger has `ahead` pending events after `now`. */
export async function topUpCronEvents(
  store: CronEventsTx,
  triggers: ReadonlyMap<string, { schedule: CronSchedule }>,
  now: Date,
  ahead: number,
): Promise<void> {
  if (triggers.size === 0) return;
  const backlog = await store.backlog([...triggers.keys()]);
  for (const [name, t] of triggers) {
    const have = backlog.get(name);
    const count = have?.count ?? 0;
    // Top up when half the window is used, so a busy trigger is not topped up every round.
    if (count > ahead / 2) continue;
    const after = have?.latest && have.latest > now ? have.latest : now;
    await store.add(name, t.schedule.upcoming(after, ahead - count));
  }
}
