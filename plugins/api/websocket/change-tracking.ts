/**
 * Keeps the change-tracking triggers of live queries (core/subscriptions, installed on the
 * tables pollers read) from outliving their use: tables that leave the metadata (untracked, or
 * their source dropped) lose theirs when the change is applied, and with
 * --live-queries-change-tracking=false every source loses them at start-up. Best effort: a
 * failure is logged and never refuses a metadata change (a leftover trigger only costs a NOTIFY
 * per writing statement).
 */
import type { Logger, MetadataApplyContext, SchemaCache, TableRef } from '../../../core/sdk/index.js';

const LOG_TYPE = 'livequery-poller-log';

/** On a metadata change: the tables each source no longer tracks. */
export async function dropForRemovedTables(apply: MetadataApplyContext, logger: Logger): Promise<void> {
  for (const [name, before] of apply.previous.sources) {
    const connection = before.connection;
    if (!connection.dropChangeTracking) continue;
    const after = apply.next.sources.get(name);
    const gone: TableRef[] = [];
    for (const [key, t] of before.tables) if (!after?.tables.has(key)) gone.push(t.table);
    if (gone.length === 0) continue;
    try {
      const dropped = await connection.dropChangeTracking(gone);
      if (dropped > 0) logger.info(LOG_TYPE, { message: `change tracking removed from ${dropped} table(s) that left the metadata`, source: name });
    } catch (e) {
      logger.warn(LOG_TYPE, { message: 'could not remove change tracking from tables that left the metadata', source: name, error: String(e) });
    }
  }
}

/** At start-up with change tracking off: whatever an earlier run installed goes. */
export async function dropEverywhere(cache: SchemaCache, logger: Logger): Promise<void> {
  for (const [name, source] of cache.sources) {
    if (!source.connection.dropChangeTracking) continue;
    try {
      const dropped = await source.connection.dropChangeTracking('all');
      if (dropped > 0) logger.info(LOG_TYPE, { message: `change tracking is off: removed its trigger from ${dropped} table(s)`, source: name });
    } catch (e) {
      logger.warn(LOG_TYPE, { message: 'could not remove change-tracking triggers', source: name, error: String(e) });
    }
  }
}
