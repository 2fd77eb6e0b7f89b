/**
 * Event log cleanup (a paid feature in the reference, open here): `cleanup_event_trigger_logs`
 * deletes an event trigger's finished events older than `clear_older_than` hours, batch after
 * batch; `pause_event_trigger_cleanups` / `resume_event_trigger_cleanups` flip the `paused` flag of
 * triggers that have a `cleanup_config` (their scheduled cleaners follow the metadata).
 */
import {
  EngineError,
  ARGS_PATH,
  argsObject,
  expectObject,
  findSource,
  optionalBoolean,
  requireKey,
  requireString,
  sourceNameArg,
  parseFailed,
  type LogCleanupRequest,
  jsonTypeName,
  SUCCESS,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  requireDatabaseKind,
} from '../../../core/sdk/index.js';
import { eventLogOf, notExists, tableWithTrigger, type KindTarget } from './lookup.js';

function positiveInt(args: Record<string, unknown>, key: string, fallback: number | undefined): number {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) throw parseFailed(`key "${key}" not found`, ARGS_PATH);
    return fallback;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) throw parseFailed(`expected Int, but encountered ${jsonTypeName(v)}`, `${ARGS_PATH}.${key}`);
  if (v < 1) throw parseFailed(`"${key}" must be a positive integer`, `${ARGS_PATH}.${key}`);
  return v;
}

function sourceTarget(ctx: OperationContext, sourceName: string): KindTarget {
  const source = findSource(ctx.draft, sourceName);
  if (!source) throw new EngineError('not-exists', `source with name "${sourceName}" does not exist`, { path: ARGS_PATH });
  const kind = requireDatabaseKind(ctx.container, source.kind);
  if (!kind.eventTriggers) throw new EngineError('not-supported', `event triggers are not supported for sources of kind ${kind.kind}`, { path: ARGS_PATH });
  return { kind: kind as KindTarget['kind'], source };
}

export async function cleanupEventTriggerLogs(op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> {
  const args = argsObject(op.args);
  const name = requireString(args, 'event_trigger_name', ARGS_PATH);
  const target = sourceTarget(ctx, sourceNameArg(args, ARGS_PATH));
  if (!tableWithTrigger(target.source, name)) throw notExists(name, ARGS_PATH);
  const request: LogCleanupRequest = {
    triggerName: name,
    olderThanHours: positiveInt(args, 'clear_older_than', undefined),
    batchSize: positiveInt(args, 'batch_size', 10000),
    timeoutSeconds: positiveInt(args, 'timeout', 60),
    cleanInvocationLogs: optionalBoolean(args, 'clean_invocation_logs', ARGS_PATH, false),
  };
  try {
    return { body: await eventLogOf(ctx, target).cleanup(request) };
  } catch (e) {
    if ((e as { code?: unknown }).code === '57014') {
      throw new EngineError('timeout', `event trigger log cleanup of "${name}" stopped: a batch took longer than ${request.timeoutSeconds} seconds`, { path: ARGS_PATH });
    }
    throw e;
  }
}

/** pause/resume: `event_triggers: [{source_name, event_triggers: [names]}]`. */
export function toggleCleanups(paused: boolean) {
  return async (op: MetadataOperation, ctx: OperationContext): Promise<OperationResult> => {
    const args = argsObject(op.args);
    const list = requireKey(args, 'event_triggers', ARGS_PATH);
    if (!Array.isArray(list)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(list)}`, `${ARGS_PATH}.event_triggers`);
    list.forEach((item, i) => {
      const path = `${ARGS_PATH}.event_triggers[${i}]`;
      const o = expectObject(item, path);
      const sourceName = requireString(o, 'source_name', path);
      const names = requireKey(o, 'event_triggers', path);
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw parseFailed('expected an array of event trigger names', `${path}.event_triggers`);
      const source = findSource(ctx.draft, sourceName);
      if (!source) throw new EngineError('not-exists', `source with name ${sourceName} does not exists`, { path });
      for (const name of names as string[]) {
        const holder = tableWithTrigger(source, name);
        const conf = holder?.event_triggers?.find((e) => e['name'] === name);
        if (!conf) throw notExists(name, path);
        const cleanup = conf['cleanup_config'];
        if (typeof cleanup !== 'object' || cleanup === null) throw new EngineError('not-exists', `cleanup config does not exist for ${name}`, { path });
        (cleanup as Record<string, unknown>)['paused'] = paused;
      }
    });
    ctx.markChanged();
    return SUCCESS;
  };
}
