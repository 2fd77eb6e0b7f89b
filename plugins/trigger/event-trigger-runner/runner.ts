/**
 * The delivery loop. Each round claims, per source, at most as many due events as there are free
 * delivery slots (`--events-http-pool-size`, shared by all sources) and no more than
 * `--events-fetch-batch-size`; after a round that did not fill a batch it sleeps
 * `--events-fetch-interval`. Each event is POSTed to its webhook (timeout from `retry_conf`),
 * and the outcome (delivered / retry at the configured interval or `Retry-After` / error after
 * the last try) is written with its invocation log. Claims use FOR UPDATE SKIP LOCKED, so
 * several engines share one event log; an engine that dies leaves its claims locked until the
 * lock timeout, after which another engine takes them (at-least-once). Stopping finishes
 * in-flight deliveries within the shutdown timeout and unlocks the rest.
 */
import {
  type EventLog,
  type ClaimedEvent,
  type EventTriggerSupport,
  type Logger,
  type OutgoingHttp,
  type SchemaCache,
  type ResolvedEventTrigger,
  type ResolvedSource,
  decideRetry,
  deliverWebhook,
  DeliveryLoop,
  type Json,
  type MetricsRegistry,
  SpanKind,
  tracing,
} from '../../../core/sdk/index.js';
import { OutcomeWriter } from './outcome-writer.js';

export interface RunnerOptions {
  poolSize: number;
  batchSize: number;
  fetchIntervalMs: number;
  lockTimeoutSeconds: number;
  shutdownTimeoutMs: number;
}

export interface RunnerDeps {
  cache(): SchemaCache;
  support(kind: string): EventTriggerSupport | undefined;
  http: OutgoingHttp;
  logger: Logger;
  metrics: MetricsRegistry;
}

/** The webhook body, in the reference's EventPayload shape. */
export function eventPayload(e: ClaimedEvent, trigger: ResolvedEventTrigger): Json {
  return {
    id: e.id,
    table: { schema: e.table.schema, name: e.table.name },
    trigger: { name: e.triggerName },
    event: e.payload as unknown as Json,
    delivery_info: { current_retry: e.tries, max_retries: trigger.conf.retry_conf.num_retries },
    created_at: e.createdAt,
  };
}

function triggersOf(source: ResolvedSource): Map<string, ResolvedEventTrigger> {
  const out = new Map<string, ResolvedEventTrigger>();
  for (const t of source.tables.values()) for (const [n, trig] of t.eventTriggers ?? []) out.set(n, trig);
  return out;
}

export class EventTriggerRunner {
  private readonly loop: DeliveryLoop;
  private readonly writers = new Map<EventLog, OutcomeWriter>();
  private readonly toRelease = new Map<EventLog, string[]>();

  constructor(
    private readonly deps: RunnerDeps,
    private readonly options: RunnerOptions,
  ) {
    this.loop = new DeliveryLoop(
      {
        round: () => this.round(),
        roundFailed: (e) => this.deps.logger.error('event-trigger', { message: 'could not fetch events', error: String(e) }),
      },
      {
        poolSize: options.poolSize,
        fetchIntervalMs: options.fetchIntervalMs,
        shutdownTimeoutMs: options.shutdownTimeoutMs,
        // Claim again once half a batch of slots is free, not one event per freed slot.
        refillAt: Math.max(1, Math.floor(Math.min(options.batchSize, options.poolSize) / 2)),
      },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Graceful stop: no new claims, in-flight deliveries get until the timeout, the rest are unlocked. */
  async stop(): Promise<void> {
    if (!this.loop.running) return;
    await this.loop.stop();
    await Promise.all([...this.writers.values()].map((w) => w.flush()));
    for (const [log, ids] of this.toRelease) {
      await log.release(ids).catch((e: unknown) =>
        this.deps.logger.error('event-trigger', { message: 'could not unlock unfinished events; they are retried after the lock timeout', error: String(e) }),
      );
    }
    this.toRelease.clear();
  }

  /** One pass over the sources; true when some source filled its batch (more are likely due). */
  private async round(): Promise<boolean> {
    let full = false;
    for (const source of this.deps.cache().sources.values()) {
      const limit = Math.min(this.options.batchSize, this.loop.free);
      if (limit <= 0 || !this.loop.running) return true;
      const triggers = triggersOf(source);
      const support = this.deps.support(source.kind);
      if (triggers.size === 0 || !support) continue;
      const log = support.eventLog(source.connection);
      let events: ClaimedEvent[];
      try {
        events = await log.claim([...triggers.keys()], limit, this.options.lockTimeoutSeconds);
      } catch (e) {
        this.deps.logger.error('event-trigger', { message: 'could not fetch events', source: source.name, error: String(e) });
        continue;
      }
      if (events.length === limit) full = true;
      for (const e of events) this.dispatch(e, triggers.get(e.triggerName), log, source.name);
    }
    return full;
  }

  private writer(log: EventLog): OutcomeWriter {
    let w = this.writers.get(log);
    if (!w) this.writers.set(log, (w = new OutcomeWriter(log, this.deps.logger)));
    return w;
  }

  private release(log: EventLog, id: string): void {
    const ids = this.toRelease.get(log) ?? [];
    ids.push(id);
    this.toRelease.set(log, ids);
    // While running, unlock at once so another round (or engine) can take it.
    if (this.loop.running) {
      this.toRelease.delete(log);
      void log.release(ids).catch(() => {});
    }
  }

  private dispatch(e: ClaimedEvent, trigger: ResolvedEventTrigger | undefined, log: EventLog, source: string): void {
    if (!trigger) {
      // The trigger went away or became inconsistent since the claim: leave the event pending.
      this.release(log, e.id);
      return;
    }
    const controller = new AbortController();
    const metrics = this.deps.metrics;
    // created_at is UTC without a zone (the event log's `timestamp` column).
    if (metrics.enabled) metrics.engine.eventTriggerLag.observe({ source, trigger: e.triggerName }, (Date.now() - Date.parse(`${e.createdAt}Z`)) / 1000);
    const deliver = () =>
      deliverWebhook({
        http: this.deps.http,
        spec: trigger.webhook,
        payload: eventPayload(e, trigger),
        sessionVariables: e.payload.session_variables,
        logVersion: '2',
        signal: controller.signal,
      });
    // Traced, the delivery continues the trace of the request whose write captured the event.
    const delivery = (tracing.active
      ? tracing.span(
          'event-trigger delivery',
          { 'svc.event_trigger': e.triggerName, 'svc.event_id': e.id, 'svc.source': source },
          deliver,
          SpanKind.INTERNAL,
          tracing.contextFrom(e.payload.trace_context),
        )
      : deliver()
    )
      .then((result) => {
        if (controller.signal.aborted && result.status === null) {
          this.release(log, e.id);
          return;
        }
        if (metrics.enabled) {
          metrics.engine.eventTriggerDeliveries.inc({ source, trigger: e.triggerName, status: result.ok ? 'success' : 'failed' });
        }
        const retry = trigger.conf.retry_conf;
        const decision = result.ok ? null : decideRetry(e.tries, retry.num_retries, retry.interval_sec, result.retryAfter);
        this.writer(log).push({
          eventId: e.id,
          triggerName: e.triggerName,
          status: result.status,
          request: result.request,
          response: result.response,
          next: result.ok ? { state: 'delivered' } : decision!.giveUp ? { state: 'error' } : { state: 'retry', delaySeconds: decision!.delaySeconds },
        });
      })
      .catch((err: unknown) => {
        this.deps.logger.error('event-trigger', { message: 'delivery failed unexpectedly', event_id: e.id, error: String(err) });
        this.release(log, e.id);
      });
    this.loop.track(e.id, controller, delivery);
  }
}
