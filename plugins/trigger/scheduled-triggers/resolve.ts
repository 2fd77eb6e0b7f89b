/**
 * Cron triggers resolved once per schema-cache snapshot: the stored definition parsed, its
 * schedule compiled, webhook URL and headers resolved from the environment and transforms
 * compiled. A trigger that fails (an unset environment variable, a bad template) is an
 * inconsistent object `cron_trigger <name>` and is not scheduled; the others keep running.
 * One-off events carry their own webhook configuration and are resolved the same way at delivery.
 */
import {
  isEngineError,
  MissingEnvVarError,
  parseRequestTransform,
  parseResponseTransform,
  perSnapshot,
  resolveEnvTemplate,
  resolveHeaders,
  type CronSchedule,
  type EnvLookup,
  type InconsistentObject,
  type SchemaCache,
  type WebhookSpec,
} from '../../../core/sdk/index.js';
import { parseCronSchedule, parseCronTrigger, type CronTriggerConf, type ScheduledWebhookConf } from './definition.js';

export interface ResolvedCronTrigger {
  conf: CronTriggerConf;
  schedule: CronSchedule;
  webhook: WebhookSpec;
}

export interface ResolvedCronTriggers {
  triggers: Map<string, ResolvedCronTrigger>;
  problems: InconsistentObject[];
}

export const cronTriggerObjectName = (name: string): string => `cron_trigger ${name}`;

/** Throws MissingEnvVarError, or an EngineError for a template that does not parse. */
export function webhookSpecOf(conf: ScheduledWebhookConf, env: EnvLookup): WebhookSpec {
  return {
    url: resolveEnvTemplate(conf.webhook, env),
    headers: resolveHeaders(conf.headers, env),
    timeoutMs: conf.retry_conf.timeout_seconds * 1000,
    ...(conf.request_transform ? { requestTransform: parseRequestTransform(conf.request_transform, '$.request_transform') } : {}),
    ...(conf.response_transform ? { responseTransform: parseResponseTransform(conf.response_transform, '$.response_transform') } : {}),
  };
}

export function resolveCronTriggers(stored: readonly Record<string, unknown>[], env: EnvLookup): ResolvedCronTriggers {
  const triggers = new Map<string, ResolvedCronTrigger>();
  const problems: InconsistentObject[] = [];
  for (const raw of stored) {
    const name = typeof raw['name'] === 'string' ? raw['name'] : '';
    try {
      const { conf } = parseCronTrigger(raw, '$');
      if (triggers.has(conf.name)) throw new Error(`cron trigger with name: ${conf.name} already exists`);
      triggers.set(conf.name, { conf, schedule: parseCronSchedule(conf.schedule, '$.schedule'), webhook: webhookSpecOf(conf, env) });
    } catch (e) {
      if (!(isEngineError(e) || e instanceof MissingEnvVarError || e instanceof Error)) throw e;
      problems.push({ type: 'cron_trigger', name: cronTriggerObjectName(name), definition: raw, reason: `Inconsistent object: ${e.message}` });
    }
  }
  return { triggers, problems };
}

/** The cron triggers of a snapshot, resolved on first use (env from the container). */
export function cronTriggersResolver(env: () => EnvLookup): (cache: SchemaCache) => ResolvedCronTriggers {
  return perSnapshot((cache) => resolveCronTriggers(cache.metadata.cron_triggers ?? [], env()));
}
