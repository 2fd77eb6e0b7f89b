/**
 * The scheduled-trigger operations (Document 2 §2.3, §4.3; reference notes §4), on /v1/metadata
 * and the legacy /v1/query: create_cron_trigger (or replace), delete_cron_trigger,
 * get_cron_triggers, create_scheduled_event, delete_scheduled_event, get_scheduled_events,
 * get_scheduled_event_invocations (also under its earlier name get_event_invocations). Cron
 * trigger operations change the draft only; their events follow once the change is committed
 * (events.ts). One-off events are data in the event store.
 */
import {
  ARGS_PATH,
  EngineError,
  MissingEnvVarError,
  SUCCESS,
  argsObject,
  assertConsistent,
  expectObject,
  jsonTypeName,
  parseFailed,
  requireKey,
  requireString,
  type ArgsObject,
  type MetadataOperation,
  type OperationContext,
  type OperationHandler,
  type OperationResult,
} from '../../../core/sdk/index.js';
import { cronNotExists, cronTriggersOf, parseCronTrigger, parseOneOffEvent } from './definition.js';
import { cronTriggerObjectName, webhookSpecOf } from './resolve.js';
import { SCHEDULED_EVENT_STATUSES, type ScheduledEventKind, type ScheduledEventStatus } from './store.js';
import { envOf, scheduledEventStore } from './context.js';

const args = (op: MetadataOperation): ArgsObject => argsObject(op.args);

const createCronTrigger: OperationHandler = async (op, ctx) => {
  const { conf, replace } = parseCronTrigger(args(op), ARGS_PATH);
  const list = cronTriggersOf(ctx.draft);
  const at = list.findIndex((t) => t['name'] === conf.name);
  if (replace && at === -1) throw cronNotExists(conf.name, ARGS_PATH);
  if (!replace && at !== -1) throw new EngineError('already-exists', `cron trigger with name: ${conf.name} already exists`, { path: ARGS_PATH });
  const stored = conf as unknown as Record<string, unknown>;
  if (at === -1) list.push(stored);
  else list[at] = stored;
  ctx.markChanged();
  await assertConsistent(ctx, [cronTriggerObjectName(conf.name)]);
  return SUCCESS;
};

const deleteCronTrigger: OperationHandler = (op, ctx) => {
  const name = requireString(args(op), 'name', ARGS_PATH);
  const list = cronTriggersOf(ctx.draft);
  const at = list.findIndex((t) => t['name'] === name);
  if (at === -1) throw cronNotExists(name, ARGS_PATH);
  list.splice(at, 1);
  if (list.length === 0) delete ctx.draft.cron_triggers;
  ctx.markChanged();
  return SUCCESS;
};

const getCronTriggers: OperationHandler = (_op, ctx) => ({ body: { cron_triggers: ctx.cache.metadata.cron_triggers ?? [] } });

const createScheduledEvent: OperationHandler = async (op, ctx) => {
  const conf = parseOneOffEvent(args(op), ARGS_PATH);
  try {
    webhookSpecOf(conf, envOf(ctx.container));
  } catch (e) {
    if (e instanceof MissingEnvVarError) throw new EngineError('invalid-configuration', e.message, { path: ARGS_PATH });
    throw e;
  }
  const id = await scheduledEventStore(ctx.container).addOneOffEvent(conf);
  return { body: { event_id: id } };
};

function parseKind(o: ArgsObject, path: string): ScheduledEventKind {
  const t = requireKey(o, 'type', path);
  if (t !== 'one_off' && t !== 'cron') throw parseFailed('expected one of "one_off", "cron" for "type"', `${path}.type`);
  return t;
}

function optionalCount(o: ArgsObject, key: string, path: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw parseFailed(`expected a non-negative integer, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

/**
 * The reference reads `limit` and `offset` beside the other args; an earlier form of ours put
 * them under `pagination`, still read so that stored scripts keep working. Both at once is
 * ambiguous and refused.
 */
function parsePage(o: ArgsObject, path: string): { limit?: number; offset?: number } {
  const top = o['limit'] !== undefined || o['offset'] !== undefined;
  const nested = o['pagination'] !== undefined && o['pagination'] !== null;
  if (top && nested) throw parseFailed('give "limit" and "offset" either beside the other args or under "pagination", not both', `${path}.pagination`);
  const [p, at] = nested ? [expectObject(o['pagination'], `${path}.pagination`), `${path}.pagination`] : [o, path];
  const limit = optionalCount(p, 'limit', at);
  const offset = optionalCount(p, 'offset', at);
  return { ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) };
}

function countRows(o: ArgsObject, path: string): boolean {
  const v = o['get_rows_count'] ?? false;
  if (typeof v !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(v)}`, `${path}.get_rows_count`);
  return v;
}

/** A cron trigger named by `trigger_name` must exist in the metadata. */
function cronTriggerArg(o: ArgsObject, ctx: OperationContext, path: string): string {
  const name = requireString(o, 'trigger_name', path);
  if (!(ctx.cache.metadata.cron_triggers ?? []).some((t) => t['name'] === name)) throw cronNotExists(name, `${path}.trigger_name`);
  return name;
}

const getScheduledEvents: OperationHandler = async (op, ctx) => {
  const o = args(op);
  const kind = parseKind(o, ARGS_PATH);
  let statuses: ScheduledEventStatus[] | undefined;
  if (o['status'] !== undefined && o['status'] !== null) {
    if (!Array.isArray(o['status'])) throw parseFailed(`expected Array, but encountered ${jsonTypeName(o['status'])}`, `${ARGS_PATH}.status`);
    statuses = o['status'].map((s, i) => {
      if (!SCHEDULED_EVENT_STATUSES.includes(s as ScheduledEventStatus)) {
        throw parseFailed(`expected one of ${SCHEDULED_EVENT_STATUSES.map((x) => `"${x}"`).join(', ')}`, `${ARGS_PATH}.status[${i}]`);
      }
      return s as ScheduledEventStatus;
    });
  }
  const result = await scheduledEventStore(ctx.container).listEvents({
    kind,
    ...(kind === 'cron' ? { triggerName: cronTriggerArg(o, ctx, ARGS_PATH) } : {}),
    ...(statuses ? { statuses } : {}),
    ...parsePage(o, ARGS_PATH),
    countRows: countRows(o, ARGS_PATH),
  });
  return { body: result };
};

const getInvocations: OperationHandler = async (op, ctx) => {
  const o = args(op);
  const kind = parseKind(o, ARGS_PATH);
  const eventId = o['event_id'] === undefined || o['event_id'] === null ? undefined : requireString(o, 'event_id', ARGS_PATH);
  const triggerName = kind === 'cron' && o['trigger_name'] !== undefined ? cronTriggerArg(o, ctx, ARGS_PATH) : undefined;
  const result = await scheduledEventStore(ctx.container).listInvocations({
    kind,
    ...(eventId !== undefined ? { eventId } : {}),
    ...(triggerName !== undefined ? { triggerName } : {}),
    ...parsePage(o, ARGS_PATH),
    countRows: countRows(o, ARGS_PATH),
  });
  return { body: result };
};

const deleteScheduledEvent: OperationHandler = async (op, ctx): Promise<OperationResult> => {
  const o = args(op);
  const kind = parseKind(o, ARGS_PATH);
  const id = requireString(o, 'event_id', ARGS_PATH);
  const deleted = await scheduledEventStore(ctx.container).deleteEvent(kind, id);
  if (!deleted) throw new EngineError('not-exists', `event id ${id} does not exist`, { path: ARGS_PATH });
  return SUCCESS;
};

export const SCHEDULED_TRIGGER_OPERATIONS: Readonly<Record<string, OperationHandler>> = {
  create_cron_trigger: createCronTrigger,
  delete_cron_trigger: deleteCronTrigger,
  get_cron_triggers: getCronTriggers,
  create_scheduled_event: createScheduledEvent,
  delete_scheduled_event: deleteScheduledEvent,
  get_scheduled_events: getScheduledEvents,
  get_scheduled_event_invocations: getInvocations,
  // The name the reference's metadata API used for it before v2.1, with the same args.
  get_event_invocations: getInvocations,
};
