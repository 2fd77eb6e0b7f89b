/**
 * Keeps each source's capture triggers in line with the metadata. On every applied metadata
 * change, a source whose event triggers (or their tables' columns) changed gets its captures
 * re-synced, and triggers that left the metadata (deleted, table untracked, source dropped) stop
 * capturing and their pending events are archived; `reload_metadata` with
 * `recreate_event_triggers` re-creates them all. At start-up, missing or outdated captures are
 * created again (nothing is dropped: another engine may know more).
 */
import type { AwilixContainer } from 'awilix';
import {
  findDatabaseKind,
  type CaptureSpec,
  type EventLog,
  type MetadataApplyContext,
  type ServerConfig,
  type SchemaCache,
  type ResolvedSource,
  type TableMetadata,
} from '../../../core/sdk/index.js';
import { resolvedTriggers } from './lookup.js';

export function captureSpecs(source: ResolvedSource, config: ServerConfig): CaptureSpec[] {
  const out: CaptureSpec[] = [];
  for (const trigger of resolvedTriggers(source)) {
    const table = source.tables.get(trigger.table)!;
    out.push({
      name: trigger.name,
      table: table.table,
      operations: trigger.operations,
      triggerOnReplication: trigger.conf.trigger_on_replication,
      tableColumns: table.columns.map((c) => ({ name: c.name, type: c.type })),
      stringifyNumeric: config.stringifyNumericTypes,
    });
  }
  return out;
}

/**
 * The names per frozen table list: consecutive snapshots share the list (the new one's was the
 * old one's "next"), so an operation at 1,000 tables lists the names of one side only.
 */
const namesByList = new WeakMap<readonly TableMetadata[], ReadonlySet<string>>();

/** Every event trigger name the source's metadata lists (resolved or not). */
function triggerNames(cache: SchemaCache, sourceName: string): ReadonlySet<string> {
  const tables = cache.metadata.sources.find((s) => s.name === sourceName)?.tables ?? [];
  const known = namesByList.get(tables);
  if (known) return known;
  const names = new Set<string>();
  for (const t of tables) for (const e of t.event_triggers ?? []) if (typeof e['name'] === 'string') names.add(e['name']);
  if (Object.isFrozen(tables)) namesByList.set(tables, names);
  return names;
}

function eventLogFor(container: AwilixContainer, source: ResolvedSource): EventLog | undefined {
  const kind = findDatabaseKind(container, source.kind);
  return kind?.eventTriggers?.eventLog(source.connection);
}

const forced = (reload: MetadataApplyContext['reload'], name: string): boolean => {
  const r = reload?.recreateEventTriggers ?? false;
  return r === true || (Array.isArray(r) && r.includes(name));
};

export async function syncOnApply(container: AwilixContainer, config: ServerConfig, apply: MetadataApplyContext): Promise<void> {
  const { previous, next, reload } = apply;
  const names = new Set([...previous.sources.keys(), ...next.sources.keys()]);
  for (const name of names) {
    const before = previous.sources.get(name);
    const after = next.sources.get(name);
    const oldNames = triggerNames(previous, name);
    const newNames = triggerNames(next, name);
    const dropped = [...oldNames].filter((n) => !newNames.has(n));
    const wanted = after ? captureSpecs(after, config) : [];
    const force = forced(reload, name);
    const unchanged = before && after && JSON.stringify(captureSpecs(before, config)) === JSON.stringify(wanted);
    if (dropped.length === 0 && !force && (unchanged || wanted.length === 0)) continue;
    // A dropped source is reached through the connection it had; an added or kept one through its new one.
    const log = eventLogFor(container, after ?? before!);
    if (!log) continue;
    await log.syncCaptures(wanted, dropped, force);
    for (const trigger of dropped) await log.archive(trigger);
  }
}

/** Start-up: re-create captures that are missing or outdated; errors are the caller's to log. */
export async function syncAll(container: AwilixContainer, config: ServerConfig, cache: SchemaCache): Promise<void> {
  for (const source of cache.sources.values()) {
    const wanted = captureSpecs(source, config);
    if (wanted.length === 0) continue;
    await eventLogFor(container, source)?.syncCaptures(wanted, [], false);
  }
}
