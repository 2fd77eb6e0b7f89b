/**
 * Serves `GET /v1/metrics`: the engine's metrics in the Prometheus text format (prom-client).
 * Read with `Authorization: Bearer <--metrics-secret>` or as admin (the admin secret, or any
 * admin session). The `metrics` API of --enabled-apis; off by default, as in the reference engine,
 * and when off the registry records nothing (see core/metrics/registry.ts).
 *
 * Taps `onHttpRoutes` (the route), `onEvent` (`schema-cache.rebuilt` counts rebuilds) and the
 * registry's collect step (pool usage per source, inconsistent objects, read at each scrape).
 * Safe to disable: nothing else depends on it.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  authenticateRequest,
  definePlugin,
  EngineError,
  isAdmin,
  type MetricsRegistry,
  type SchemaCacheRef,
  type ServerConfig,
  type SourceConnections,
} from '../../../core/sdk/index.js';

export const METRICS_PATH = '/v1/metrics';

function bearerMatches(authorization: string | undefined, secret: Buffer): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  return given.length === secret.length && timingSafeEqual(given, secret);
}

export default definePlugin({
  name: 'metrics',
  kind: 'api',
  api: 'metrics',
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const metrics = container.resolve<MetricsRegistry>('metrics');
    const secret = config.metricsSecret === undefined ? undefined : Buffer.from(config.metricsSecret);
    const m = metrics.engine;

    metrics.onCollect(() => {
      if (!container.hasRegistration('sourceConnections')) return;
      const connections = container.resolve<SourceConnections>('sourceConnections');
      m.poolConnections.reset();
      for (const [source, connection] of connections.open()) {
        const stats = connection.poolStats?.();
        if (!stats) continue;
        m.poolConnections.set({ source, state: 'total' }, stats.total);
        m.poolConnections.set({ source, state: 'idle' }, stats.idle);
        m.poolConnections.set({ source, state: 'waiting' }, stats.waiting);
      }
      const ref = container.resolve<SchemaCacheRef>('schemaCacheRef');
      m.metadataInconsistentObjects.set({}, ref.current.inconsistentObjects.length);
    });

    hooks.onEvent.tap('api/metrics', (event) => {
      if (event.type !== 'schema-cache.rebuilt') return;
      m.metadataRebuilds.inc({ outcome: event.cache.inconsistentObjects.length === 0 ? 'consistent' : 'inconsistent' });
    });

    hooks.onHttpRoutes.tap('api/metrics', ({ router }) => {
      router.get(METRICS_PATH, async (ctx) => {
        if (!(secret && bearerMatches(ctx.get('authorization') || undefined, secret))) {
          const session = await authenticateRequest(ctx, hooks);
          if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        }
        const { contentType, text } = await metrics.render();
        ctx.type = contentType;
        ctx.body = text;
      });
    });
  },
});
