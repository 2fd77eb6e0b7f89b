/**
 * Cron triggers and one-off scheduled events as the metadata and the operations write them
 * (Document 2 §2.3, reference notes §4): the argument parsers with the reference's messages and
 * defaults (`retry_conf`: num_retries 0, retry_interval_seconds 10, timeout_seconds 60,
 * tolerance_seconds 21600), so that export shows what applies. Shapes only: environment
 * variables are resolved when the schema cache is built (resolve.ts).
 */
import {
  CronSchedule,
  EngineError,
  expectObject,
  jsonTypeName,
  parseFailed,
  parseHeaderConfs,
  parseRequestTransform,
  parseResponseTransform,
  requireKey,
  type ArgsObject,
  type HeaderConf,
  type Json,
  type RequestTransformDefinition,
  type ResponseTransformDefinition,
} from '../../../core/sdk/index.js';

export interface ScheduledRetryConf {
  num_retries: number;
  retry_interval_seconds: number;
  timeout_seconds: number;
  tolerance_seconds: number;
}

export const DEFAULT_SCHEDULED_RETRY_CONF: Readonly<ScheduledRetryConf> = Object.freeze({
  num_retries: 0,
  retry_interval_seconds: 10,
  timeout_seconds: 60,
  tolerance_seconds: 21600,
});

/** The webhook, headers, retries and transforms every scheduled delivery has. */
export interface ScheduledWebhookConf {
  webhook: string;
  payload?: Json;
  headers: HeaderConf[];
  retry_conf: ScheduledRetryConf;
  comment?: string;
  request_transform?: RequestTransformDefinition;
  response_transform?: ResponseTransformDefinition;
}

export interface CronTriggerConf extends ScheduledWebhookConf {
  name: string;
  schedule: string;
  include_in_metadata: boolean;
}

export interface OneOffEventConf extends ScheduledWebhookConf {
  schedule_at: Date;
}

const TRIGGER_NAME = /^[A-Za-z0-9_-]+$/;

function optionalString(o: ArgsObject, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function stringKey(o: ArgsObject, key: string, path: string): string {
  const v = requireKey(o, key, path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function nonNegativeInt(o: ArgsObject, key: string, path: string, fallback: number): number {
  const v = o[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw parseFailed(`expected Int, but encountered ${typeof v === 'number' ? 'Number' : jsonTypeName(v)}`, `${path}.${key}`);
  }
  if (v < 0) throw parseFailed(`${key} cannot be a negative value`, `${path}.${key}`);
  return v;
}

export function parseScheduledRetryConf(value: unknown, path: string): ScheduledRetryConf {
  if (value === undefined || value === null) return { ...DEFAULT_SCHEDULED_RETRY_CONF };
  const o = expectObject(value, path);
  const known = new Set(Object.keys(DEFAULT_SCHEDULED_RETRY_CONF));
  for (const k of Object.keys(o)) if (!known.has(k)) throw parseFailed(`unexpected key "${k}" in retry_conf`, `${path}.${k}`);
  const conf: ScheduledRetryConf = {
    num_retries: nonNegativeInt(o, 'num_retries', path, DEFAULT_SCHEDULED_RETRY_CONF.num_retries),
    retry_interval_seconds: nonNegativeInt(o, 'retry_interval_seconds', path, DEFAULT_SCHEDULED_RETRY_CONF.retry_interval_seconds),
    timeout_seconds: nonNegativeInt(o, 'timeout_seconds', path, DEFAULT_SCHEDULED_RETRY_CONF.timeout_seconds),
    tolerance_seconds: nonNegativeInt(o, 'tolerance_seconds', path, DEFAULT_SCHEDULED_RETRY_CONF.tolerance_seconds),
  };
  if (conf.timeout_seconds === 0) throw parseFailed('timeout_seconds must be a positive number of seconds', `${path}.timeout_seconds`);
  return conf;
}

/** The webhook URL: a string that may hold `{{ENV}}` templates. */
function parseWebhook(o: ArgsObject, path: string): string {
  const v = requireKey(o, 'webhook', path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.webhook`);
  if (v.trim() === '') throw parseFailed('webhook cannot be empty', `${path}.webhook`);
  return v;
}

function parseWebhookConf(o: ArgsObject, path: string): ScheduledWebhookConf {
  const conf: ScheduledWebhookConf = {
    webhook: parseWebhook(o, path),
    headers: parseHeaderConfs(o['headers'], `${path}.headers`),
    retry_conf: parseScheduledRetryConf(o['retry_conf'], `${path}.retry_conf`),
  };
  if (o['payload'] !== undefined && o['payload'] !== null) conf.payload = o['payload'] as Json;
  const comment = optionalString(o, 'comment', path);
  if (comment !== undefined) conf.comment = comment;
  if (o['request_transform'] !== undefined && o['request_transform'] !== null) {
    conf.request_transform = parseRequestTransform(o['request_transform'], `${path}.request_transform`).definition;
  }
  if (o['response_transform'] !== undefined && o['response_transform'] !== null) {
    conf.response_transform = parseResponseTransform(o['response_transform'], `${path}.response_transform`).definition;
  }
  return conf;
}

export function parseCronSchedule(value: string, path: string): CronSchedule {
  try {
    return CronSchedule.parse(value);
  } catch (e) {
    throw parseFailed((e as Error).message, path);
  }
}

const CRON_KEYS = new Set([
  'name', 'webhook', 'schedule', 'payload', 'headers', 'retry_conf', 'include_in_metadata', 'comment', 'replace',
  'request_transform', 'response_transform',
]);

function refuseUnknown(o: ArgsObject, keys: ReadonlySet<string>, path: string): void {
  for (const k of Object.keys(o)) if (!keys.has(k)) throw parseFailed(`unexpected key "${k}"`, `${path}.${k}`);
}

/** `create_cron_trigger` args (and a stored trigger, which has no `replace`). */
export function parseCronTrigger(value: unknown, path: string): { conf: CronTriggerConf; replace: boolean } {
  const o = expectObject(value, path);
  refuseUnknown(o, CRON_KEYS, path);
  const name = stringKey(o, 'name', path);
  if (!TRIGGER_NAME.test(name)) {
    throw parseFailed('only alphanumeric, underscore and hyphens allowed in a cron trigger name', `${path}.name`);
  }
  const schedule = stringKey(o, 'schedule', path);
  parseCronSchedule(schedule, `${path}.schedule`);
  const include = requireKey(o, 'include_in_metadata', path);
  if (typeof include !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(include)}`, `${path}.include_in_metadata`);
  const replace = o['replace'] ?? false;
  if (typeof replace !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(replace)}`, `${path}.replace`);
  const base = parseWebhookConf(o, path);
  // Key order as the reference exports a cron trigger.
  const conf: CronTriggerConf = {
    name,
    webhook: base.webhook,
    schedule,
    include_in_metadata: include,
    ...(base.payload !== undefined ? { payload: base.payload } : {}),
    retry_conf: base.retry_conf,
    headers: base.headers,
    ...(base.comment !== undefined ? { comment: base.comment } : {}),
    ...(base.request_transform ? { request_transform: base.request_transform } : {}),
    ...(base.response_transform ? { response_transform: base.response_transform } : {}),
  };
  return { conf, replace };
}

const ONE_OFF_KEYS = new Set(['webhook', 'schedule_at', 'payload', 'headers', 'retry_conf', 'comment', 'request_transform', 'response_transform']);

/** ISO 8601 with a zone (`Z` or an offset); a time without one is read as UTC, as the reference does. */
export function parseTimestamp(value: unknown, path: string): Date {
  if (typeof value !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(value)}`, path);
  const text = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i.test(value) ? value : `${value}Z`;
  const d = new Date(text);
  if (!/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(value) || Number.isNaN(d.getTime())) {
    throw parseFailed(`could not parse timestamp: ${value}`, path);
  }
  return d;
}

export function parseOneOffEvent(value: unknown, path: string): OneOffEventConf {
  const o = expectObject(value, path);
  refuseUnknown(o, ONE_OFF_KEYS, path);
  const scheduleAt = parseTimestamp(requireKey(o, 'schedule_at', path), `${path}.schedule_at`);
  return { ...parseWebhookConf(o, path), schedule_at: scheduleAt };
}

/** Cron triggers of a metadata document (the stored list, created on demand). */
export function cronTriggersOf(draft: { cron_triggers?: Record<string, unknown>[] }): Record<string, unknown>[] {
  return (draft.cron_triggers ??= []);
}

export const cronNotExists = (name: string, path: string): EngineError =>
  new EngineError('not-exists', `cron trigger with name: ${name} does not exist`, { path });
