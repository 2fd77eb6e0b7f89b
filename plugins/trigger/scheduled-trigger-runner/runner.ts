/**
 * The scheduled-trigger loop. Each round it tops cron triggers up to their pending window (every
 * `generateIntervalMs`), claims due events (at most the free delivery slots and `batchSize`),
 * and delivers each: an event later than its `tolerance_seconds` is marked `dead` unattempted;
 * otherwise it is POSTed (timeout from `retry_conf`) and ends `delivered`, goes back to
 * `scheduled` for a retry (`retry_interval_seconds` or `Retry-After`), or ends `error` after
 * `num_retries + 1` attempts. Claims are exclusive across engines (SKIP LOCKED); a claim left by
 * an engine that died is taken over after `lockTimeoutSeconds`. Stopping finishes in-flight
 * deliveries within the shutdown timeout and puts the rest back to `scheduled`.
 */
import {
  decideRetry,
  deliverWebhook,
  DeliveryLoop,
  MissingEnvVarError,
  type EnvLookup,
  type Json,
  type Logger,
  type OutgoingHttp,
  type WebhookSpec,
} from '../../../core/sdk/index.js';
import type { ResolvedCronTriggers } from '../scheduled-triggers/resolve.js';
import { webhookSpecOf } from '../scheduled-triggers/resolve.js';
import type { ScheduledWebhookConf } from '../scheduled-triggers/definition.js';
import type { ClaimedScheduledEvent, ScheduledEventStore, ScheduledOutcome } from '../scheduled-triggers/store.js';
import type { SchedulerClock } from '../scheduled-triggers/context.js';
import { topUpCronEvents } from '../scheduled-triggers/events.js';

export interface ScheduledRunnerOptions {
  poolSize: number;
  batchSize: number;
  fetchIntervalMs: number;
  lockTimeoutSeconds: number;
  eventsAhead: number;
  generateIntervalMs: number;
  shutdownTimeoutMs: number;
}

export interface ScheduledRunnerDeps {
  store: ScheduledEventStore;
  http: OutgoingHttp;
  logger: Logger;
  clock: () => SchedulerClock;
  triggers: () => ResolvedCronTriggers;
  env: () => EnvLookup;
}

/** UTC time as the reference encodes it: ISO 8601 with `Z`, fractions only when present. */
export function utcText(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

/** The webhook body (reference notes §4): `name` for cron events, `created_at` for one-off ones. */
export function scheduledPayload(e: ClaimedScheduledEvent, conf: ScheduledWebhookConf): Json {
  const body: Record<string, Json> = { id: e.id };
  if (e.kind === 'cron') body['name'] = e.triggerName!;
  body['scheduled_time'] = utcText(e.scheduledTime);
  body['payload'] = conf.payload ?? null;
  if (conf.comment !== undefined) body['comment'] = conf.comment;
  if (e.kind === 'one_off') body['created_at'] = utcText(e.createdAt);
  return body;
}

export class ScheduledTriggerRunner {
  private readonly loop: DeliveryLoop;
  private nextGeneration = 0;

  constructor(
    private readonly deps: ScheduledRunnerDeps,
    private readonly options: ScheduledRunnerOptions,
  ) {
    this.loop = new DeliveryLoop(
      {
        round: () => this.round(),
        roundFailed: (e) => this.deps.logger.error('scheduled-trigger', { message: 'could not fetch scheduled events', error: String(e) }),
      },
      { poolSize: options.poolSize, fetchIntervalMs: options.fetchIntervalMs, shutdownTimeoutMs: options.shutdownTimeoutMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Graceful stop: no new claims; in-flight deliveries get until the timeout, the rest go back to scheduled. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async generate(): Promise<void> {
    const now = this.deps.clock().now();
    if (now.getTime() < this.nextGeneration) return;
    this.nextGeneration = now.getTime() + this.options.generateIntervalMs;
    const triggers = this.deps.triggers().triggers;
    if (triggers.size === 0) return;
    await this.deps.store.withCronTriggers([...triggers.keys()], (tx) => topUpCronEvents(tx, triggers, now, this.options.eventsAhead));
  }

  /** Tops cron triggers up, then claims; true when the claim filled its batch or no slot is free. */
  private async round(): Promise<boolean> {
    await this.generate();
    const limit = Math.min(this.options.batchSize, this.loop.free);
    if (limit <= 0) return true;
    const triggers = this.deps.triggers().triggers;
    const events = await this.deps.store.claim({
      now: this.deps.clock().now(),
      limit,
      lockTimeoutSeconds: this.options.lockTimeoutSeconds,
      cronTriggers: [...triggers.keys()],
    });
    for (const e of events) this.dispatch(e);
    return events.length === limit;
  }

  private release(e: ClaimedScheduledEvent): void {
    void this.deps.store.release(e.kind, [e.id]).catch((err: unknown) =>
      this.deps.logger.error('scheduled-trigger', { message: 'could not unlock a scheduled event; it is retried after the lock timeout', event_id: e.id, error: String(err) }),
    );
  }

  private record(e: ClaimedScheduledEvent, outcome: ScheduledOutcome): Promise<void> {
    return this.deps.store.record(e.kind, e.id, outcome, this.deps.clock().now()).catch((err: unknown) =>
      this.deps.logger.error('scheduled-trigger', {
        message: 'could not record a delivery outcome; the event stays locked and is delivered again after the lock timeout',
        event_id: e.id,
        error: String(err),
      }),
    );
  }

  private dispatch(e: ClaimedScheduledEvent): void {
    const conf = e.kind === 'cron' ? this.deps.triggers().triggers.get(e.triggerName!)?.conf : e.conf;
    if (!conf) {
      // The trigger went away or became inconsistent since the claim: leave the event pending.
      this.release(e);
      return;
    }
    const lateMs = this.deps.clock().now().getTime() - e.dueAt.getTime();
    if (lateMs > conf.retry_conf.tolerance_seconds * 1000) {
      void this.record(e, { state: 'dead' });
      return;
    }
    let spec: WebhookSpec;
    try {
      spec = e.kind === 'cron' ? this.deps.triggers().triggers.get(e.triggerName!)!.webhook : webhookSpecOf(conf, this.deps.env());
    } catch (err) {
      const message = err instanceof MissingEnvVarError ? err.message : String(err);
      void this.record(e, {
        state: 'error',
        status: null,
        request: { payload: scheduledPayload(e, conf), headers: [], version: '1' },
        response: { type: 'client_error', data: { message }, version: '1' },
      });
      return;
    }
    const controller = new AbortController();
    const delivery = deliverWebhook({ http: this.deps.http, spec, payload: scheduledPayload(e, conf), sessionVariables: null, logVersion: '1', signal: controller.signal })
      .then(async (result) => {
        if (controller.signal.aborted && result.status === null) {
          this.release(e);
          return;
        }
        const retry = conf.retry_conf;
        const logged = { status: result.status, request: result.request, response: result.response };
        if (result.ok) return this.record(e, { state: 'delivered', ...logged });
        const decision = decideRetry(e.tries, retry.num_retries, retry.retry_interval_seconds, result.retryAfter);
        return this.record(e, decision.giveUp ? { state: 'error', ...logged } : { state: 'retry', delaySeconds: decision.delaySeconds, ...logged });
      })
      .catch((err: unknown) => {
        this.deps.logger.error('scheduled-trigger', { message: 'delivery failed unexpectedly', event_id: e.id, error: String(err) });
        this.release(e);
      });
    this.loop.track(e.id, controller, delivery);
  }
}
