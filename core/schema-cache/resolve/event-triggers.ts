/**
 * Resolves a table's event triggers: the stored definition parsed, its columns checked against the
 * table, the webhook URL and headers resolved from the environment, transforms compiled and the
 * cleanup schedule read. A trigger that fails is an inconsistent object in the reference's shape
 * (`event_trigger <name> in table <t> in source <s>`); the rest keep capturing and delivering.
 */
import { isEngineError } from '../../errors.js';
import type { TriggerOperation } from '../../db/event-triggers.js';
import {
  OPERATION_KEYS,
  columnsNamedBy,
  parseStoredEventTrigger,
  type EventTriggerConf,
} from '../../metadata/event-trigger-definition.js';
import type { InconsistentObject } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import { MissingEnvVarError, requireEnv, resolveEnvTemplate, type EnvLookup } from '../../webhooks/env-template.js';
import { resolveHeaders } from '../../webhooks/headers.js';
import { parseRequestTransform, parseResponseTransform } from '../../webhooks/transform/definition.js';
import { CronSchedule } from '../../webhooks/cron.js';
import type { WebhookSpec } from '../../webhooks/deliver.js';
import type { ResolvedTable } from '../model.js';
import { REASON_PREFIX } from './inconsistency.js';

export interface ResolvedEventTrigger {
  name: string;
  source: string;
  /** Key (`schema.name`) of the table. */
  table: string;
  conf: EventTriggerConf;
  operations: Partial<Record<TriggerOperation, { columns: '*' | string[]; payload: '*' | string[] }>>;
  webhook: WebhookSpec;
  /** The URL as written (`{{ENV}}` unexpanded) or the env variable's name, for logs. */
  webhookDisplay: string;
  cleanup?: { schedule: CronSchedule };
}

export interface EventTriggerEnv {
  source: string;
  env: EnvLookup;
  /** `trigger_on_replication` for definitions that do not say (per database kind). */
  defaultOnReplication: boolean;
  /** Names already used in this source (trigger names are unique per source). */
  seen: Set<string>;
}

export const eventTriggerObjectName = (source: string, table: ResolvedTable['table'], name: string): string =>
  `event_trigger ${name} in table ${qualifiedTableName(table)} in source ${source}`;

function inconsistency(env: EventTriggerEnv, t: ResolvedTable, raw: Record<string, unknown>, reason: string): InconsistentObject {
  const name = typeof raw['name'] === 'string' ? raw['name'] : '';
  return {
    type: 'event_trigger',
    name: eventTriggerObjectName(env.source, t.table, name),
    definition: { source: env.source, table: { schema: t.table.schema, name: t.table.name }, name, configuration: raw },
    reason: REASON_PREFIX + reason,
  };
}

export function resolveEventTriggers(env: EventTriggerEnv, t: ResolvedTable): { triggers: Map<string, ResolvedEventTrigger>; inconsistencies: InconsistentObject[] } {
  const triggers = new Map<string, ResolvedEventTrigger>();
  const inconsistencies: InconsistentObject[] = [];
  for (const raw of t.metadata.event_triggers ?? []) {
    try {
      const resolved = resolveOne(env, t, raw);
      triggers.set(resolved.name, resolved);
    } catch (e) {
      if (isEngineError(e) || e instanceof MissingEnvVarError || e instanceof ResolveFailure) inconsistencies.push(inconsistency(env, t, raw, e.message));
      else throw e;
    }
  }
  return { triggers, inconsistencies };
}

class ResolveFailure extends Error {}

function resolveOne(env: EventTriggerEnv, t: ResolvedTable, raw: Record<string, unknown>): ResolvedEventTrigger {
  const conf = parseStoredEventTrigger(raw, '$', env.defaultOnReplication);
  if (env.seen.has(conf.name)) throw new ResolveFailure(`Event trigger with name "${conf.name}" already exists`);
  env.seen.add(conf.name);
  for (const c of columnsNamedBy(conf)) {
    if (!t.columnsByName.has(c)) throw new ResolveFailure(`in table "${qualifiedTableName(t.table)}": in event trigger "${conf.name}": column "${c}" does not exist`);
  }
  const url = conf.webhook !== undefined ? resolveEnvTemplate(conf.webhook, env.env) : requireEnv(conf.webhook_from_env!, env.env);
  const operations: ResolvedEventTrigger['operations'] = {};
  for (const [op, key] of OPERATION_KEYS) {
    const spec = conf.definition[key];
    if (spec) operations[op] = { columns: spec.columns, payload: spec.payload ?? '*' };
  }
  const webhook: WebhookSpec = {
    url,
    headers: resolveHeaders(conf.headers ?? [], env.env),
    timeoutMs: conf.retry_conf.timeout_sec * 1000,
    ...(conf.request_transform ? { requestTransform: parseRequestTransform(conf.request_transform, '$.request_transform') } : {}),
    ...(conf.response_transform ? { responseTransform: parseResponseTransform(conf.response_transform, '$.response_transform') } : {}),
  };
  return {
    name: conf.name,
    source: env.source,
    table: t.key,
    conf,
    operations,
    webhook,
    webhookDisplay: conf.webhook ?? conf.webhook_from_env!,
    ...(conf.cleanup_config ? { cleanup: { schedule: CronSchedule.parse(conf.cleanup_config.schedule) } } : {}),
  };
}
