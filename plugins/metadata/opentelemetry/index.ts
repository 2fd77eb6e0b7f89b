/**
 * OpenTelemetry export configured in the metadata: `set_opentelemetry_config` stores the
 * reference's `opentelemetry` object (status, data_types, exporter_otlp, batch_span_processor),
 * `set_opentelemetry_status` switches it on or off. Without that key the standard OTEL_* variables
 * decide (an OTLP endpoint turns tracing on); OTEL_SDK_DISABLED=true keeps it off either way.
 *
 * Taps `onMetadataOperation` (the two operations), `onSchemaCacheBuild` (a stored configuration
 * that no longer resolves, e.g. a header from a missing variable, is an inconsistent object) and
 * `onEvent` (applies the configuration on start and after each rebuild; flushes and stops on
 * shutdown). Safe to disable: tracing then stays off (the OTEL_* variables are read here too).
 */
import {
  ARGS_PATH,
  definePlugin,
  EngineError,
  expectObject,
  inconsistencyDroppers,
  isPlainObject,
  jsonTypeName,
  type MetadataOperation,
  type OperationContext,
  parseFailed,
  registerMetadataOperations,
  type SchemaCacheRef,
  SUCCESS,
  tracing,
  tracingConfigFromEnv,
  type TracingConfig,
} from '../../../core/sdk/index.js';

const PLUGIN_ID = 'metadata/opentelemetry';

type Header = { name: string; value: string } | { name: string; value_from_env: string };

export interface OpenTelemetryMetadata {
  status: 'enabled' | 'disabled';
  data_types: string[];
  exporter_otlp: {
    otlp_traces_endpoint?: string;
    protocol: 'http/protobuf' | 'http/json';
    headers: Header[];
    resource_attributes: Array<{ name: string; value: string }>;
    traces_propagators: string[];
  };
  batch_span_processor: { max_export_batch_size: number };
}

const notSupported = (message: string, path: string) => new EngineError('not-supported', message, { path });

function stringAt(o: Record<string, unknown>, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw parseFailed(`expected String for "${key}", but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function listAt(o: Record<string, unknown>, key: string, path: string): unknown[] {
  const v = o[key] ?? [];
  if (!Array.isArray(v)) throw parseFailed(`expected Array for "${key}", but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function onlyKeys(o: Record<string, unknown>, keys: readonly string[], path: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw parseFailed(`unexpected key "${k}"`, `${path}.${k}`);
}

export function parseOpenTelemetry(raw: unknown, path: string): OpenTelemetryMetadata {
  const o = expectObject(raw, path);
  onlyKeys(o, ['status', 'data_types', 'exporter_otlp', 'batch_span_processor'], path);
  const status = o['status'] ?? 'disabled';
  if (status !== 'enabled' && status !== 'disabled') throw parseFailed('expected "enabled" or "disabled" for "status"', `${path}.status`);
  const dataTypes = listAt(o, 'data_types', path).map((t, i) => {
    if (t === 'traces') return t;
    if (t === 'metrics' || t === 'logs') throw notSupported(`exporting ${t} over OTLP is not supported (traces only; metrics are on /v1/metrics)`, `${path}.data_types[${i}]`);
    throw parseFailed(`unknown data type ${JSON.stringify(t)} (traces)`, `${path}.data_types[${i}]`);
  });
  const ePath = `${path}.exporter_otlp`;
  const e = o['exporter_otlp'] === undefined ? {} : expectObject(o['exporter_otlp'], ePath);
  onlyKeys(e, ['otlp_traces_endpoint', 'otlp_metrics_endpoint', 'otlp_logs_endpoint', 'protocol', 'headers', 'resource_attributes', 'traces_propagators'], ePath);
  for (const k of ['otlp_metrics_endpoint', 'otlp_logs_endpoint']) {
    if (e[k] !== undefined) throw notSupported(`${k}: only traces are exported over OTLP`, `${ePath}.${k}`);
  }
  let endpoint: string | undefined;
  if (e['otlp_traces_endpoint'] !== undefined) {
    endpoint = stringAt(e, 'otlp_traces_endpoint', ePath);
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw parseFailed(`invalid URL for "otlp_traces_endpoint": ${endpoint}`, `${ePath}.otlp_traces_endpoint`);
    }
  }
  const protocol = e['protocol'] ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw notSupported(`protocol ${JSON.stringify(protocol)} is not supported (http/protobuf, http/json)`, `${ePath}.protocol`);
  }
  const headers = listAt(e, 'headers', ePath).map((h, i): Header => {
    const hp = `${ePath}.headers[${i}]`;
    const ho = expectObject(h, hp);
    onlyKeys(ho, ['name', 'value', 'value_from_env'], hp);
    const name = stringAt(ho, 'name', hp);
    if ('value_from_env' in ho) return { name, value_from_env: stringAt(ho, 'value_from_env', hp) };
    return { name, value: stringAt(ho, 'value', hp) };
  });
  const resourceAttributes = listAt(e, 'resource_attributes', ePath).map((a, i) => {
    const ap = `${ePath}.resource_attributes[${i}]`;
    const ao = expectObject(a, ap);
    onlyKeys(ao, ['name', 'value'], ap);
    return { name: stringAt(ao, 'name', ap), value: stringAt(ao, 'value', ap) };
  });
  const propagators = listAt(e, 'traces_propagators', ePath).map((p, i) => {
    if (p === 'tracecontext') return p;
    throw notSupported(`trace propagator ${JSON.stringify(p)} is not supported (tracecontext)`, `${ePath}.traces_propagators[${i}]`);
  });
  const bPath = `${path}.batch_span_processor`;
  const b = o['batch_span_processor'] === undefined ? {} : expectObject(o['batch_span_processor'], bPath);
  onlyKeys(b, ['max_export_batch_size'], bPath);
  const size = b['max_export_batch_size'] ?? 512;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 10_000) {
    throw parseFailed('expected an integer from 1 to 10000 for "max_export_batch_size"', `${bPath}.max_export_batch_size`);
  }
  return {
    status,
    data_types: dataTypes.length ? dataTypes : ['traces'],
    exporter_otlp: {
      ...(endpoint !== undefined ? { otlp_traces_endpoint: endpoint } : {}),
      protocol,
      headers,
      resource_attributes: resourceAttributes,
      traces_propagators: propagators.length ? propagators : ['tracecontext'],
    },
    batch_span_processor: { max_export_batch_size: size },
  };
}

/** The tracing configuration the metadata and environment give together; throws what does not resolve. */
export function resolveTracing(stored: unknown, env: NodeJS.ProcessEnv): TracingConfig | null {
  const fromEnv = tracingConfigFromEnv(env);
  if (env['OTEL_SDK_DISABLED']?.toLowerCase() === 'true') return null;
  if (stored === undefined || stored === null) return fromEnv;
  const o = parseOpenTelemetry(stored, '$.opentelemetry');
  if (o.status !== 'enabled') return null;
  const endpoint = o.exporter_otlp.otlp_traces_endpoint ?? fromEnv?.endpoint;
  if (!endpoint) throw new EngineError('invalid-configuration', 'OpenTelemetry is enabled but no otlp_traces_endpoint is set (nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)');
  const headers: Record<string, string> = { ...fromEnv?.headers };
  for (const h of o.exporter_otlp.headers) {
    if ('value' in h) headers[h.name] = h.value;
    else {
      const v = env[h.value_from_env];
      if (v === undefined) throw new EngineError('invalid-configuration', `environment variable "${h.value_from_env}" (header ${h.name}) is not set`);
      headers[h.name] = v;
    }
  }
  return {
    endpoint,
    protocol: o.exporter_otlp.protocol,
    headers,
    resourceAttributes: { ...fromEnv?.resourceAttributes, ...Object.fromEntries(o.exporter_otlp.resource_attributes.map((a) => [a.name, a.value])) },
    serviceName: fromEnv?.serviceName ?? 'svc-graphql-engine',
    maxExportBatchSize: o.batch_span_processor.max_export_batch_size,
    scheduledDelayMs: fromEnv?.scheduledDelayMs ?? 5000,
  };
}

function setConfig(op: MetadataOperation, ctx: OperationContext) {
  const parsed = parseOpenTelemetry(op.args ?? {}, ARGS_PATH);
  ctx.draft.opentelemetry = parsed as unknown as Record<string, unknown>;
  ctx.markChanged();
  return Promise.resolve(SUCCESS);
}

function setStatus(op: MetadataOperation, ctx: OperationContext) {
  const status = op.args;
  if (status !== 'enabled' && status !== 'disabled') {
    throw parseFailed(`expected "enabled" or "disabled", but encountered ${JSON.stringify(status) ?? 'nothing'}`, ARGS_PATH);
  }
  const current = isPlainObject(ctx.draft.opentelemetry) ? ctx.draft.opentelemetry : {};
  ctx.draft.opentelemetry = { ...parseOpenTelemetry(current, '$.opentelemetry'), status } as unknown as Record<string, unknown>;
  ctx.markChanged();
  return Promise.resolve(SUCCESS);
}

export default definePlugin({
  name: 'opentelemetry',
  kind: 'metadata',
  register(container, hooks) {
    const env = container.resolve<NodeJS.ProcessEnv>('env');
    registerMetadataOperations(hooks, PLUGIN_ID, {
      unprefixed: { set_opentelemetry_config: setConfig, set_opentelemetry_status: setStatus },
      endpoints: { unprefixed: ['metadata'] },
    });
    inconsistencyDroppers(container).set('opentelemetry', (draft) => {
      delete draft.opentelemetry;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      try {
        resolveTracing(build.cache.metadata.opentelemetry, env);
      } catch (e) {
        build.addInconsistency({ type: 'opentelemetry', name: 'opentelemetry', definition: build.cache.metadata.opentelemetry, reason: `Inconsistent object: ${(e as Error).message}` });
      }
    });
    const apply = async (stored: unknown) => {
      let config: TracingConfig | null = null;
      try {
        config = resolveTracing(stored, env);
      } catch {
        // Reported as an inconsistent object by the build; tracing stays off meanwhile.
      }
      await tracing.configure(config);
    };
    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      if (event.type === 'server.started') {
        await apply(container.resolve<SchemaCacheRef>('schemaCacheRef').current.metadata.opentelemetry);
      } else if (event.type === 'schema-cache.rebuilt') {
        await apply(event.cache.metadata.opentelemetry);
      } else if (event.type === 'shutdown.started') {
        await tracing.flush().catch(() => {});
        await tracing.configure(null);
      }
    });
  },
});
