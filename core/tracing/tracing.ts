/**
 * Tracing with OpenTelemetry (the official SDK, OTLP over HTTP). Off by default. Like
 * OpenTelemetry's own global provider, the tracer is one per process: the request path, the
 * database pools and the outgoing HTTP client all reach it without plumbing. Instrumented code
 * reads `tracing.active` first and does nothing else when it is false: no span objects, no
 * context lookups, no header writes.
 *
 * Configured by the `opentelemetry` metadata (set_opentelemetry_config / _status, see
 * plugins/metadata/opentelemetry) or, without it, by the standard OTEL_* variables
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT turns it on;
 * OTEL_SDK_DISABLED=true keeps it off).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ENGINE_VERSION } from '../version.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** A resolved tracing configuration (metadata and environment merged). */
export interface TracingConfig {
  endpoint: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  resourceAttributes: Record<string, string>;
  serviceName: string;
  maxExportBatchSize: number;
  /** Milliseconds between batch exports. */
  scheduledDelayMs: number;
}

/** The W3C trace context of a span, as stored with an event (`trace_context`) and sent in `traceparent`. */
export interface TraceContextJson {
  trace_id: string;
  span_id: string;
  sampling_state: string;
}

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};
const headerSetter: TextMapSetter<Record<string, string | string[]>> = {
  set: (carrier, key, value) => void (carrier[key] = value),
};

export class Tracing {
  /** Read first by every instrumented site: when false they do nothing. */
  active = false;
  private provider: TracerProvider | undefined;
  private tracer: ReturnType<TracerProvider['getTracer']> | undefined;
  private readonly contexts = new AsyncLocalStorageContextManager();
  private readonly propagator = new W3CTraceContextPropagator();
  private current: string | undefined;

  constructor() {
    this.contexts.enable();
  }

  /** Applies a configuration (null turns tracing off); flushes what the previous one had buffered. */
  async configure(config: TracingConfig | null): Promise<void> {
    const fingerprint = config ? JSON.stringify(config) : undefined;
    if (fingerprint === this.current) return;
    const previous = this.provider;
    this.active = false;
    this.provider = undefined;
    this.tracer = undefined;
    this.current = fingerprint;
    if (config) {
      const options = { url: config.endpoint, headers: config.headers };
      const exporter: SpanExporter = config.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
      this.provider = new TracerProvider({
        resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': ENGINE_VERSION, ...config.resourceAttributes }),
        spanProcessors: [
          new BatchSpanProcessor({
            exporter,
            maxExportBatchSize: config.maxExportBatchSize,
            maxQueueSize: Math.max(2048, config.maxExportBatchSize * 4),
            scheduledDelayMillis: config.scheduledDelayMs,
          }),
        ],
      });
      this.tracer = this.provider.getTracer('svc-graphql-engine', ENGINE_VERSION);
      this.active = true;
    }
    await previous?.shutdown().catch(() => {});
  }

  /** Exports what is buffered (tests, shutdown). */
  async flush(): Promise<void> {
    await this.provider?.forceFlush();
  }

  /**
   * Runs `fn` in a span, a child of the current one (or of `parent`). The span ends when `fn`
   * settles; a throw marks it as an error. Call only when `active`.
   */
  async span<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL, parent?: Context): Promise<T> {
    const tracer = this.tracer;
    if (!tracer) return fn(NOOP_SPAN);
    const span = tracer.startSpan(name, { kind, attributes }, parent ?? this.contexts.active());
    try {
      return await this.contexts.with(trace.setSpan(parent ?? this.contexts.active(), span), () => fn(span));
    } catch (e) {
      span.recordException(e instanceof Error ? e : String(e));
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  }

  /** A server span for an incoming request, continuing the caller's `traceparent` if it sent one. */
  serverSpan<T>(name: string, headers: Record<string, string | string[] | undefined>, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    return this.span(name, attributes, fn, SpanKind.SERVER, parent);
  }

  /** Writes `traceparent` (and `tracestate`) for the current span into outgoing headers. */
  inject(headers: Record<string, string | string[]>): void {
    this.propagator.inject(this.contexts.active(), headers, headerSetter);
  }

  /** The current span's context in the shape stored with events (`svc.tracecontext`), or undefined. */
  currentTraceContext(): TraceContextJson | undefined {
    const sc = trace.getSpanContext(this.contexts.active());
    if (!sc) return undefined;
    return { trace_id: sc.traceId, span_id: sc.spanId, sampling_state: String(sc.traceFlags & 1) };
  }

  /** A parent context from a stored trace context (an event's), for the spans of its delivery. */
  contextFrom(stored: unknown): Context | undefined {
    if (!stored || typeof stored !== 'object') return undefined;
    const { trace_id: traceId, span_id: spanId, sampling_state: sampled } = stored as Partial<TraceContextJson>;
    if (typeof traceId !== 'string' || typeof spanId !== 'string' || !/^[0-9a-f]{32}$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId)) return undefined;
    return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: sampled === '0' ? 0 : 1, isRemote: true });
  }
}

const NOOP_SPAN: Span = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/**
 * The process's tracer (see the module comment for why it is one per process). Kept on
 * globalThis so that a second copy of this module (the package loaded twice, or a test runner
 * loading sources through both require and import) still shares it.
 */
const GLOBAL_KEY = Symbol.for('svc-graphql-engine.tracing');
export const tracing: Tracing = ((globalThis as Record<symbol, Tracing | undefined>)[GLOBAL_KEY] ??= new Tracing());

export { SpanKind };

/** The standard environment's tracing configuration, or null when it does not turn tracing on. */
export function tracingConfigFromEnv(env: NodeJS.ProcessEnv): TracingConfig | null {
  if (env['OTEL_SDK_DISABLED']?.toLowerCase() === 'true') return null;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? (base ? `${base.replace(/\/$/, '')}/v1/traces` : undefined);
  if (!endpoint) return null;
  const protocol = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ?? env['OTEL_EXPORTER_OTLP_PROTOCOL'] ?? 'http/protobuf';
  return {
    endpoint,
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    headers: parseKeyValues(env['OTEL_EXPORTER_OTLP_TRACES_HEADERS'] ?? env['OTEL_EXPORTER_OTLP_HEADERS']),
    resourceAttributes: parseKeyValues(env['OTEL_RESOURCE_ATTRIBUTES']),
    serviceName: env['OTEL_SERVICE_NAME'] ?? 'svc-graphql-engine',
    maxExportBatchSize: Number(env['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'] ?? 512) || 512,
    scheduledDelayMs: Number(env['OTEL_BSP_SCHEDULE_DELAY'] ?? 5000) || 5000,
  };
}

/** `k1=v1,k2=v2` (percent-encoded values), the OTEL_*_HEADERS / OTEL_RESOURCE_ATTRIBUTES format. */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    }
  }
  return out;
}
