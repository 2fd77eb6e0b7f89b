/** Finding event triggers in a draft (by source) and in the live cache, with the reference's errors. */
import {
  EngineError,
  requireSourceOfKind,
  type ArgsObject,
  type OperationContext,
  type SourceMetadata,
  type TableMetadata,
  type ResolvedEventTrigger,
  type ResolvedSource,
  type EventLog,
  type EventTriggerSupport,
  type DatabaseKind,
  type SourceConnections,
} from '../../../core/sdk/index.js';

export const notExists = (name: string, path: string): EngineError => new EngineError('not-exists', `event trigger "${name}" does not exist`, { path });

/** The table entry holding the trigger in a source's metadata, if any. */
export function tableWithTrigger(source: SourceMetadata, name: string): TableMetadata | undefined {
  return source.tables.find((t) => (t.event_triggers ?? []).some((e) => e['name'] === name));
}

export function resolvedTrigger(source: ResolvedSource | undefined, name: string): ResolvedEventTrigger | undefined {
  for (const t of source?.tables.values() ?? []) {
    const found = t.eventTriggers?.get(name);
    if (found) return found;
  }
  return undefined;
}

export function* resolvedTriggers(source: ResolvedSource): Generator<ResolvedEventTrigger> {
  for (const t of source.tables.values()) yield* t.eventTriggers?.values() ?? [];
}

export interface KindTarget {
  kind: DatabaseKind & { eventTriggers: EventTriggerSupport };
  source: SourceMetadata;
}

export function kindTarget(ctx: OperationContext, prefix: string, sourceName: string, path: string): KindTarget {
  const kind = ctx.dbKind(prefix);
  if (!kind.eventTriggers) throw new EngineError('not-supported', `event triggers are not supported for sources of kind ${kind.kind}`, { path });
  return { kind: kind as KindTarget['kind'], source: requireSourceOfKind(ctx.draft, sourceName, kind, path) };
}

/** The event log of a source of the draft (its pool is shared with the schema cache). */
export function eventLogOf(ctx: OperationContext, target: KindTarget): EventLog {
  const connections = ctx.container.resolve<SourceConnections>('sourceConnections');
  return target.kind.eventTriggers.eventLog(connections.get(target.source.name, target.kind, target.source.configuration));
}

export function refuseKeys(args: ArgsObject, keys: readonly string[], operation: string, path: string): void {
  for (const k of keys) {
    if (k in args) {
      throw new EngineError('parse-failed', `"${k}" is not accepted by the legacy ${operation}; use the pg_ form on /v1/metadata`, { path: `${path}.${k}` });
    }
  }
}
