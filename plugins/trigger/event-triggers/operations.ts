/**
 * The per-kind event trigger operations: create (or replace), delete, redeliver and invoke. Create
 * and delete only change the draft: the capture triggers follow when the change is applied (see
 * capture-sync.ts), so a failed bulk leaves the database as it was. Redeliver and invoke act on
 * the source's event log directly and change no metadata.
 */
import {
  EngineError,
  ARGS_PATH,
  catalogIfAvailable,
  requireKey,
  requireString,
  requireTable,
  requireTrackedTable,
  sameTable,
  sourceNameArg,
  type ArgsObject,
  assertConsistent,
  columnsNamedBy,
  parseCreateEventTriggerArgs,
  SUCCESS,
  type OperationContext,
  type OperationResult,
  type PrefixedHandler,
  eventTriggerObjectName,
  indexCatalog,
  tableKey,
} from '../../../core/sdk/index.js';
import { eventLogOf, kindTarget, notExists, refuseKeys, resolvedTrigger, tableWithTrigger } from './lookup.js';

async function createEventTrigger(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const target = kindTarget(ctx, prefix, sourceNameArg(args, ARGS_PATH), ARGS_PATH);
  const table = requireTable(args, 'table', ARGS_PATH);
  const meta = requireTrackedTable(target.source, table, ARGS_PATH);
  const { conf, replace } = parseCreateEventTriggerArgs(args, ARGS_PATH, target.kind.eventTriggers.defaultTriggerOnReplication);

  const holder = tableWithTrigger(target.source, conf.name);
  if (replace) {
    if (!holder) throw notExists(conf.name, ARGS_PATH);
    if (!sameTable(holder.table, table)) throw new EngineError('not-supported', 'cannot replace table or schema for trigger', { path: ARGS_PATH });
  } else if (holder) {
    throw new EngineError('already-exists', `Event trigger with name "${conf.name}" already exists`, { path: ARGS_PATH });
  }

  const catalog = await catalogIfAvailable(ctx, target.source.name);
  const columns = catalog ? indexCatalog(catalog).tables.get(tableKey(table))?.columns : undefined;
  for (const c of columnsNamedBy(conf)) {
    if (columns && !columns.some((x) => x.name === c)) throw new EngineError('not-exists', `column "${c}" does not exist`, { path: ARGS_PATH });
  }

  const list = (meta.event_triggers ??= []);
  const stored = conf as unknown as Record<string, unknown>;
  const at = list.findIndex((e) => e['name'] === conf.name);
  if (at >= 0) list[at] = stored;
  else list.push(stored);
  ctx.markChanged();
  // Unset environment variables and the like make the trigger inconsistent: refuse, as the
  // reference's buildSchemaCacheFor does, with the reason.
  await assertConsistent(ctx, [eventTriggerObjectName(target.source.name, table, conf.name)]);
  return SUCCESS;
}

async function deleteEventTrigger(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const name = requireString(args, 'name', ARGS_PATH);
  const target = kindTarget(ctx, prefix, sourceNameArg(args, ARGS_PATH), ARGS_PATH);
  const holder = tableWithTrigger(target.source, name);
  if (!holder) throw notExists(name, ARGS_PATH);
  holder.event_triggers = (holder.event_triggers ?? []).filter((e) => e['name'] !== name);
  if (holder.event_triggers.length === 0) delete holder.event_triggers;
  ctx.markChanged();
  return SUCCESS;
}

async function redeliverEvent(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const eventId = requireString(args, 'event_id', ARGS_PATH);
  const target = kindTarget(ctx, prefix, sourceNameArg(args, ARGS_PATH), ARGS_PATH);
  const outcome = await eventLogOf(ctx, target).redeliver(eventId);
  if (outcome === 'not-found') throw new EngineError('not-exists', 'event not found', { path: ARGS_PATH });
  if (outcome === 'locked') throw new EngineError('busy', 'event is already being processed', { path: ARGS_PATH });
  return SUCCESS;
}

async function invokeEventTrigger(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const name = requireString(args, 'name', ARGS_PATH);
  const payload = requireKey(args, 'payload', ARGS_PATH);
  const target = kindTarget(ctx, prefix, sourceNameArg(args, ARGS_PATH), ARGS_PATH);
  const trigger = resolvedTrigger(ctx.cache.sources.get(target.source.name), name);
  if (!trigger) throw notExists(name, ARGS_PATH);
  if (!trigger.conf.definition.enable_manual) throw new EngineError('not-supported', 'manual mode is not enabled for event trigger', { path: ARGS_PATH });
  const table = ctx.cache.sources.get(target.source.name)!.tables.get(trigger.table)!.table;
  const id = await eventLogOf(ctx, target).insertManual(table, name, payload, JSON.stringify(ctx.session.variables));
  return { body: { event_id: id } };
}

export const OPERATIONS: Readonly<Record<string, PrefixedHandler>> = {
  create_event_trigger: createEventTrigger,
  delete_event_trigger: deleteEventTrigger,
  redeliver_event: redeliverEvent,
  invoke_event_trigger: invokeEventTrigger,
};

/** Keys the legacy /v1/query form does not have (Document 2 §4.2). */
const NOT_LEGACY = ['source', 'cleanup_config', 'request_transform', 'response_transform', 'trigger_on_replication'];

export const LEGACY_OPERATIONS: Readonly<Record<string, PrefixedHandler>> = {
  create_event_trigger: (ctx, args, prefix) => {
    refuseKeys(args, NOT_LEGACY, 'create_event_trigger', ARGS_PATH);
    return createEventTrigger(ctx, args, prefix);
  },
  delete_event_trigger: (ctx, args, prefix) => {
    refuseKeys(args, ['source'], 'delete_event_trigger', ARGS_PATH);
    return deleteEventTrigger(ctx, args, prefix);
  },
  redeliver_event: (ctx, args, prefix) => {
    refuseKeys(args, ['source'], 'redeliver_event', ARGS_PATH);
    return redeliverEvent(ctx, args, prefix);
  },
  invoke_event_trigger: (ctx, args, prefix) => {
    refuseKeys(args, ['source'], 'invoke_event_trigger', ARGS_PATH);
    return invokeEventTrigger(ctx, args, prefix);
  },
};
