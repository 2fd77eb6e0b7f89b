/**
 * An event trigger as the metadata stores it (the reference's export format, inside a table's
 * `event_triggers`), and the parsers for the create operation's arguments and for stored
 * definitions, with the reference's messages. Parsing checks shapes only; whether columns exist
 * and environment variables are set is the resolver's job (core/schema-cache/resolve).
 */
import { EngineError } from '../errors.js';
import { jsonTypeName } from '../json-type.js';
import { parseHeaderConfs, type HeaderConf } from '../webhooks/headers.js';
import { parseRequestTransform, parseResponseTransform, type RequestTransformDefinition, type ResponseTransformDefinition } from '../webhooks/transform/definition.js';
import { CronSchedule } from '../webhooks/cron.js';
import type { ColumnList, TriggerOperation } from '../db/event-triggers.js';

export interface OperationSpec {
  columns: ColumnList;
  payload?: ColumnList;
}

export interface RetryConf {
  num_retries: number;
  interval_sec: number;
  timeout_sec: number;
}

export interface CleanupConfig {
  schedule: string;
  batch_size: number;
  clear_older_than: number;
  timeout: number;
  clean_invocation_logs: boolean;
  paused: boolean;
}

export interface EventTriggerConf {
  name: string;
  definition: { enable_manual: boolean; insert?: OperationSpec; update?: OperationSpec; delete?: OperationSpec };
  retry_conf: RetryConf;
  webhook?: string;
  webhook_from_env?: string;
  headers?: HeaderConf[];
  request_transform?: RequestTransformDefinition;
  response_transform?: ResponseTransformDefinition;
  cleanup_config?: CleanupConfig;
  trigger_on_replication: boolean;
}

export const DEFAULT_RETRY_CONF: RetryConf = Object.freeze({ num_retries: 0, interval_sec: 10, timeout_sec: 60 });

/** 63 (PostgreSQL's identifier limit) - `notify_svc_` - `_INSERT`. */
export const MAX_TRIGGER_NAME_LENGTH = 42;

export const OPERATION_KEYS: ReadonlyArray<[TriggerOperation, 'insert' | 'update' | 'delete']> = [
  ['INSERT', 'insert'],
  ['UPDATE', 'update'],
  ['DELETE', 'delete'],
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const parseFailed = (message: string, path: string) => new EngineError('parse-failed', message, { path });

function expectObject(v: unknown, path: string): Record<string, unknown> {
  if (!isObject(v)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(v)}`, path);
  return v;
}

function optionalString(o: Record<string, unknown>, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function optionalBool(o: Record<string, unknown>, key: string, path: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function optionalInt(o: Record<string, unknown>, key: string, path: string, min = 0): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw parseFailed(`expected Int, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  if (v < min) throw parseFailed(`"${key}" must be at least ${min}`, `${path}.${key}`);
  return v;
}

function columnList(v: unknown, path: string): ColumnList {
  if (v === '*') return '*';
  if (Array.isArray(v) && v.every((c) => typeof c === 'string')) return v as string[];
  throw parseFailed('expected "*" or an array of column names', path);
}

function operationSpec(v: unknown, path: string): OperationSpec | undefined {
  if (v === undefined || v === null) return undefined;
  const o = expectObject(v, path);
  if (!('columns' in o)) throw parseFailed('key "columns" not found', path);
  const columns = columnList(o.columns, `${path}.columns`);
  if (Array.isArray(columns) && columns.length === 0) throw parseFailed('found empty column specification', path);
  const spec: OperationSpec = { columns };
  if (o.payload !== undefined && o.payload !== null) {
    spec.payload = columnList(o.payload, `${path}.payload`);
    if (Array.isArray(spec.payload) && spec.payload.length === 0) throw parseFailed('found empty payload specification', path);
  }
  return spec;
}

export function validTriggerName(name: string, path: string): void {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw parseFailed('only alphanumeric and underscore and hyphens allowed for name', path);
  if (name.length > MAX_TRIGGER_NAME_LENGTH) throw parseFailed(`event trigger name can be at most ${MAX_TRIGGER_NAME_LENGTH} characters`, path);
}

function retryConf(v: unknown, path: string): RetryConf {
  if (v === undefined || v === null) return { ...DEFAULT_RETRY_CONF };
  const o = expectObject(v, path);
  return {
    num_retries: optionalInt(o, 'num_retries', path) ?? DEFAULT_RETRY_CONF.num_retries,
    interval_sec: optionalInt(o, 'interval_sec', path) ?? DEFAULT_RETRY_CONF.interval_sec,
    timeout_sec: optionalInt(o, 'timeout_sec', path, 1) ?? DEFAULT_RETRY_CONF.timeout_sec,
  };
}

export function parseCleanupConfig(v: unknown, path: string): CleanupConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const o = expectObject(v, path);
  const schedule = optionalString(o, 'schedule', path);
  if (schedule === undefined) throw parseFailed('key "schedule" not found', path);
  try {
    CronSchedule.parse(schedule);
  } catch (e) {
    throw parseFailed((e as Error).message, `${path}.schedule`);
  }
  const olderThan = optionalInt(o, 'clear_older_than', path, 1);
  if (olderThan === undefined) throw parseFailed('key "clear_older_than" not found', path);
  return {
    schedule,
    batch_size: optionalInt(o, 'batch_size', path, 1) ?? 10000,
    clear_older_than: olderThan,
    timeout: optionalInt(o, 'timeout', path, 1) ?? 60,
    clean_invocation_logs: optionalBool(o, 'clean_invocation_logs', path) ?? false,
    paused: optionalBool(o, 'paused', path) ?? false,
  };
}

/** The keys shared by the create arguments and the stored form, after the trigger's operations. */
function commonKeys(o: Record<string, unknown>, path: string, defaultOnReplication: boolean): Omit<EventTriggerConf, 'name' | 'definition'> {
  const webhook = optionalString(o, 'webhook', path);
  const fromEnv = optionalString(o, 'webhook_from_env', path);
  if (webhook !== undefined && fromEnv !== undefined) throw parseFailed('only one of webhook or webhook_from_env should be given', path);
  if (webhook === undefined && fromEnv === undefined) throw parseFailed('must provide webhook or webhook_from_env', path);
  const conf: Omit<EventTriggerConf, 'name' | 'definition'> = {
    retry_conf: retryConf(o.retry_conf, `${path}.retry_conf`),
    ...(webhook !== undefined ? { webhook } : { webhook_from_env: fromEnv! }),
    trigger_on_replication: optionalBool(o, 'trigger_on_replication', path) ?? defaultOnReplication,
  };
  const headers = parseHeaderConfs(o.headers, `${path}.headers`);
  if (headers.length > 0) conf.headers = headers;
  if (o.request_transform !== undefined && o.request_transform !== null) {
    conf.request_transform = parseRequestTransform(o.request_transform, `${path}.request_transform`).definition;
  }
  if (o.response_transform !== undefined && o.response_transform !== null) {
    conf.response_transform = parseResponseTransform(o.response_transform, `${path}.response_transform`).definition;
  }
  const cleanup = parseCleanupConfig(o.cleanup_config, `${path}.cleanup_config`);
  if (cleanup) conf.cleanup_config = cleanup;
  return conf;
}

function definitionOf(o: Record<string, unknown>, path: string, enableManual: boolean): EventTriggerConf['definition'] {
  const def: EventTriggerConf['definition'] = { enable_manual: enableManual };
  for (const [, key] of OPERATION_KEYS) {
    const spec = operationSpec(o[key], `${path}.${key}`);
    if (spec) def[key] = spec;
  }
  if (!def.insert && !def.update && !def.delete && !enableManual) {
    throw parseFailed('atleast one amongst insert/update/delete/enable_manual spec must be provided', path);
  }
  return def;
}

/** `<prefix>_create_event_trigger` arguments (keys of Document 2 §2.2) into the stored form. */
export function parseCreateEventTriggerArgs(args: Record<string, unknown>, path: string, defaultOnReplication: boolean): { conf: EventTriggerConf; replace: boolean } {
  const name = optionalString(args, 'name', path);
  if (name === undefined) throw parseFailed('key "name" not found', path);
  validTriggerName(name, `${path}.name`);
  const enableManual = optionalBool(args, 'enable_manual', path) ?? false;
  const definition = definitionOf(args, path, enableManual);
  return {
    conf: { name, definition, ...commonKeys(args, path, defaultOnReplication) },
    replace: optionalBool(args, 'replace', path) ?? false,
  };
}

/** A stored definition (export format), as replace_metadata and the resolver read it. */
export function parseStoredEventTrigger(raw: unknown, path: string, defaultOnReplication: boolean): EventTriggerConf {
  const o = expectObject(raw, path);
  const name = optionalString(o, 'name', path);
  if (name === undefined) throw parseFailed('key "name" not found', path);
  validTriggerName(name, `${path}.name`);
  const d = expectObject(o.definition ?? {}, `${path}.definition`);
  const definition = definitionOf(d, `${path}.definition`, optionalBool(d, 'enable_manual', `${path}.definition`) ?? false);
  return { name, definition, ...commonKeys(o, path, defaultOnReplication) };
}

/** Every column an event trigger names (listened or sent), for dependency checks and renames. */
export function columnsNamedBy(conf: Pick<EventTriggerConf, 'definition'>): string[] {
  const out = new Set<string>();
  for (const [, key] of OPERATION_KEYS) {
    const spec = conf.definition[key];
    if (!spec) continue;
    if (Array.isArray(spec.columns)) for (const c of spec.columns) out.add(c);
    if (Array.isArray(spec.payload)) for (const c of spec.payload) out.add(c);
  }
  return [...out];
}
