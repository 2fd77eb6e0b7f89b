/**
 * The engine's metrics: one registry per engine (container key `metrics`), exposed in the
 * Prometheus text format on `/v1/metrics` when the `metrics` API is enabled. When it is not,
 * every instrument is a shared no-op object and `enabled` is false, so instrumented code costs
 * one property read: the hot path checks `metrics.enabled` before it measures anything.
 *
 * Plugins record through the well-known instruments (`metrics.engine`) or define their own with
 * counter/gauge/histogram; `onCollect` runs just before each scrape, for gauges read from state
 * (pool sizes, inconsistent objects) rather than counted as things happen.
 */
import client from 'prom-client';

export type Labels<L extends string> = Partial<Record<L, string | number>>;

export interface CounterMetric<L extends string = string> {
  inc(labels?: Labels<L>, value?: number): void;
}

export interface GaugeMetric<L extends string = string> {
  set(labels: Labels<L>, value: number): void;
  inc(labels?: Labels<L>, value?: number): void;
  dec(labels?: Labels<L>, value?: number): void;
  /** Forget every labelled value (a source or trigger that left the metadata). */
  reset(): void;
}

export interface HistogramMetric<L extends string = string> {
  /** `value` in the metric's unit (seconds for every duration here). */
  observe(labels: Labels<L>, value: number): void;
}

export interface MetricDefinition<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  buckets?: readonly number[];
}

/** Request durations: from 1 ms (a cached plan on a warm pool) to 10 s. */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Event and scheduled-trigger lag, from creation (or schedule) to delivery: up to an hour. */
export const LAG_BUCKETS: readonly number[] = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/** The instruments the engine itself records; every name is documented in docs/api.md. */
export interface EngineInstruments {
  httpRequests: CounterMetric<'endpoint' | 'operation_type' | 'status'>;
  httpRequestDuration: HistogramMetric<'endpoint' | 'operation_type'>;
  websocketConnections: GaugeMetric<never>;
  activeSubscriptions: GaugeMetric<'subscription_kind'>;
  planCacheLookups: CounterMetric<'result'>;
  poolConnections: GaugeMetric<'source' | 'state'>;
  eventTriggerDeliveries: CounterMetric<'source' | 'trigger' | 'status'>;
  eventTriggerLag: HistogramMetric<'source' | 'trigger'>;
  scheduledTriggerDeliveries: CounterMetric<'trigger_type' | 'status'>;
  scheduledTriggerLag: HistogramMetric<'trigger_type'>;
  metadataRebuilds: CounterMetric<'outcome'>;
  metadataInconsistentObjects: GaugeMetric<never>;
}

export interface MetricsRegistry {
  readonly enabled: boolean;
  readonly engine: EngineInstruments;
  counter<L extends string>(def: MetricDefinition<L>): CounterMetric<L>;
  gauge<L extends string>(def: MetricDefinition<L>): GaugeMetric<L>;
  histogram<L extends string>(def: HistogramDefinition<L>): HistogramMetric<L>;
  onCollect(fn: () => void | Promise<void>): void;
  /** The exposition text and its content type; runs the collectors first. */
  render(): Promise<{ contentType: string; text: string }>;
}

export const METRICS_KEY = 'metrics';

const NOOP_COUNTER: CounterMetric<never> = { inc() {} };
const NOOP_GAUGE: GaugeMetric<never> = { set() {}, inc() {}, dec() {}, reset() {} };
const NOOP_HISTOGRAM: HistogramMetric<never> = { observe() {} };

export function createMetrics(opts: { enabled: boolean }): MetricsRegistry {
  return opts.enabled ? new PromMetrics() : DISABLED;
}

const DISABLED: MetricsRegistry = Object.freeze({
  enabled: false,
  engine: engineInstruments({
    counter: () => NOOP_COUNTER,
    gauge: () => NOOP_GAUGE,
    histogram: () => NOOP_HISTOGRAM,
  }),
  counter: <L extends string>(): CounterMetric<L> => NOOP_COUNTER,
  gauge: <L extends string>(): GaugeMetric<L> => NOOP_GAUGE,
  histogram: <L extends string>(): HistogramMetric<L> => NOOP_HISTOGRAM,
  onCollect() {},
  render: () => Promise.resolve({ contentType: client.Registry.PROMETHEUS_CONTENT_TYPE, text: '' }),
});

type Factory = Pick<MetricsRegistry, 'counter' | 'gauge' | 'histogram'>;

function engineInstruments(f: Factory): EngineInstruments {
  return {
    httpRequests: f.counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by endpoint, GraphQL operation type and response status',
      labelNames: ['endpoint', 'operation_type', 'status'],
    }),
    httpRequestDuration: f.histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'time from receiving a request to sending its response',
      labelNames: ['endpoint', 'operation_type'],
      buckets: LATENCY_BUCKETS,
    }),
    websocketConnections: f.gauge({ name: 'svc_websocket_connections', help: 'open websocket connections' }),
    activeSubscriptions: f.gauge({
      name: 'svc_active_subscriptions',
      help: 'running GraphQL subscriptions, by kind (live or streaming)',
      labelNames: ['subscription_kind'],
    }),
    planCacheLookups: f.counter({
      name: 'svc_plan_cache_lookups_total',
      help: 'query plan cache lookups, by result (hit or miss)',
      labelNames: ['result'],
    }),
    poolConnections: f.gauge({
      name: 'svc_source_pool_connections',
      help: 'database connections per source, by state (total, idle, waiting: callers waiting for one)',
      labelNames: ['source', 'state'],
    }),
    eventTriggerDeliveries: f.counter({
      name: 'svc_event_trigger_deliveries_total',
      help: 'event trigger webhook deliveries, by status (success, failed: will retry or gave up)',
      labelNames: ['source', 'trigger', 'status'],
    }),
    eventTriggerLag: f.histogram({
      name: 'svc_event_trigger_lag_seconds',
      help: 'time from an event being captured to its delivery attempt',
      labelNames: ['source', 'trigger'],
      buckets: LAG_BUCKETS,
    }),
    scheduledTriggerDeliveries: f.counter({
      name: 'svc_scheduled_trigger_deliveries_total',
      help: 'scheduled and cron trigger deliveries, by trigger type (cron, one_off) and status',
      labelNames: ['trigger_type', 'status'],
    }),
    scheduledTriggerLag: f.histogram({
      name: 'svc_scheduled_trigger_lag_seconds',
      help: 'time from an event\'s scheduled time to its delivery attempt',
      labelNames: ['trigger_type'],
      buckets: LAG_BUCKETS,
    }),
    metadataRebuilds: f.counter({
      name: 'svc_metadata_rebuilds_total',
      help: 'schema cache rebuilds from metadata, by outcome (consistent, inconsistent)',
      labelNames: ['outcome'],
    }),
    metadataInconsistentObjects: f.gauge({
      name: 'svc_metadata_inconsistent_objects',
      help: 'inconsistent objects in the live metadata',
    }),
  };
}

/**
 * Instruments kept in plain maps keyed by their label values, rendered through prom-client's
 * registry at scrape time. prom-client's own instruments hash the label object on every call,
 * which cost several microseconds per request on the hot path; a map lookup by a joined key does not.
 */
type LabelValues = Record<string, string>;

abstract class Series<T> {
  protected readonly series = new Map<string, { labels: LabelValues; value: T }>();
  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}

  protected entry(labels: Labels<string> | undefined, fresh: () => T): { labels: LabelValues; value: T } {
    let key = '';
    if (labels) for (const n of this.labelNames) key += `${labels[n] ?? ''}\u0001`;
    let e = this.series.get(key);
    if (!e) {
      const values: LabelValues = {};
      for (const n of this.labelNames) values[n] = String(labels?.[n] ?? '');
      e = { labels: values, value: fresh() };
      this.series.set(key, e);
    }
    return e;
  }

  reset(): void {
    this.series.clear();
  }
}

class FastCounter extends Series<{ n: number }> implements CounterMetric<string> {
  readonly type = 'counter';
  inc(labels?: Labels<string>, value = 1): void {
    this.entry(labels, () => ({ n: 0 })).value.n += value;
  }
  get() {
    const values = [...this.series.values()].map((e) => ({ labels: e.labels, value: e.value.n }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' as const };
  }
}

class FastGauge extends Series<{ n: number }> implements GaugeMetric<string> {
  readonly type = 'gauge';
  set(labels: Labels<string>, value: number): void {
    this.entry(labels, () => ({ n: 0 })).value.n = value;
  }
  inc(labels?: Labels<string>, value = 1): void {
    this.entry(labels, () => ({ n: 0 })).value.n += value;
  }
  dec(labels?: Labels<string>, value = 1): void {
    this.entry(labels, () => ({ n: 0 })).value.n -= value;
  }
  get() {
    // An unlabelled gauge nobody set yet reads 0, as prom-client's does.
    const values = this.series.size === 0 && this.labelNames.length === 0 ? [{ labels: {}, value: 0 }] : [...this.series.values()].map((e) => ({ labels: e.labels, value: e.value.n }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' as const };
  }
}

class FastHistogram extends Series<{ counts: Float64Array; sum: number; count: number }> implements HistogramMetric<string> {
  readonly type = 'histogram';
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
  }
  observe(labels: Labels<string>, value: number): void {
    const v = this.entry(labels, () => ({ counts: new Float64Array(this.buckets.length), sum: 0, count: 0 })).value;
    const b = this.buckets;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]!) {
        v.counts[i]!++;
        break;
      }
    }
    v.sum += value;
    v.count++;
  }
  get() {
    const name = this.name;
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { labels, value } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += value.counts[i]!;
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: value.count, metricName: `${name}_bucket` });
      values.push({ labels, value: value.sum, metricName: `${name}_sum` });
      values.push({ labels, value: value.count, metricName: `${name}_count` });
    }
    return { name, help: this.help, type: this.type, values, aggregator: 'sum' as const };
  }
}

class PromMetrics implements MetricsRegistry {
  readonly enabled = true;
  readonly engine: EngineInstruments;
  private readonly registry = new client.Registry();
  private readonly collectors: Array<() => void | Promise<void>> = [];

  constructor() {
    this.engine = engineInstruments(this);
    client.collectDefaultMetrics({ register: this.registry, prefix: 'svc_process_' });
  }

  private add<M extends { name: string }>(metric: M): M {
    this.registry.registerMetric(metric as unknown as client.Metric);
    return metric;
  }

  counter<L extends string>(def: MetricDefinition<L>): CounterMetric<L> {
    return this.add(new FastCounter(def.name, def.help, def.labelNames ?? []));
  }

  gauge<L extends string>(def: MetricDefinition<L>): GaugeMetric<L> {
    return this.add(new FastGauge(def.name, def.help, def.labelNames ?? []));
  }

  histogram<L extends string>(def: HistogramDefinition<L>): HistogramMetric<L> {
    return this.add(new FastHistogram(def.name, def.help, def.labelNames ?? [], def.buckets ?? LATENCY_BUCKETS));
  }

  onCollect(fn: () => void | Promise<void>): void {
    this.collectors.push(fn);
  }

  async render(): Promise<{ contentType: string; text: string }> {
    for (const fn of this.collectors) await fn();
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
