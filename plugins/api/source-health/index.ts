/**
 * Source health (Document 2 §2.6, §4.5): `GET /healthz/sources` (admin only, not subject to
 * --enabled-apis) answers `{<source>: {status, error, timestamp}}` for every source whose metadata
 * has a `health_check`, with statuses OK / TIMEOUT / ERROR / FAILED from ./checker.ts. Taps
 * `onEvent` (checks start when the server starts, follow every schema-cache rebuild, stop at
 * shutdown) and `onSchemaCacheBuild` (a `health_check` that does not parse is an inconsistent
 * object). With --workers N the checks run in worker 1 only (where background work runs) and
 * their report is the engine's shared state, so every worker answers the same. Safe to disable:
 * nothing is checked then.
 */
import {
  authenticateRequest,
  definePlugin,
  EngineError,
  engineSharedState,
  findDatabaseKind,
  inconsistencyDroppers,
  isAdmin,
  isEngineError,
  type Logger,
  type SchemaCache,
  type SchemaCacheRef,
  type SharedValue,
  type SourceConnections,
} from '../../../core/sdk/index.js';
import { parseHealthCheck } from '../../metadata/sources/health-check.js';
import { HealthChecker, type CheckedSource } from './checker.js';

const PLUGIN_ID = 'api/source-health';
const REPORT_KEY = 'source-health';

export default definePlugin({
  name: 'source-health',
  kind: 'api',
  register(container, hooks) {
    // The checks run once per engine (where background work runs: worker 1 of --workers); their
    // report is shared state, so /healthz/sources answers the same in every worker.
    const state = () => engineSharedState(container);
    const checker = new HealthChecker(container.resolve<Logger>('logger'), (report) =>
      // As JSON: the same value another worker gets over IPC.
      state().publish(REPORT_KEY, JSON.parse(JSON.stringify(report)) as SharedValue),
    );
    let running = false;

    const checkedSources = (cache: SchemaCache): CheckedSource[] => {
      const connections = container.resolve<SourceConnections>('sourceConnections');
      const out: CheckedSource[] = [];
      for (const meta of cache.metadata.sources) {
        if (meta['health_check'] === undefined) continue;
        let config;
        try {
          config = parseHealthCheck(meta['health_check'], '$.health_check');
        } catch {
          continue; // reported as an inconsistent object below
        }
        const kind = findDatabaseKind(container, meta.kind);
        let connection: CheckedSource['connection'];
        if (!kind) connection = { failed: 'cannot deserialize health check config because backend does not implement health checks' };
        else {
          try {
            kind.validateConfiguration(meta.configuration, '$.configuration');
            connection = connections.get(meta.name, kind, meta.configuration);
          } catch (e) {
            connection = { failed: isEngineError(e) ? e.message : String(e) };
          }
        }
        out.push({ name: meta.name, config, connection });
      }
      return out;
    };

    inconsistencyDroppers(container).set('health_check', (draft, o) => {
      const source = draft.sources.find((s) => s.name === (o.definition as { source?: string }).source);
      if (source) delete source['health_check'];
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      for (const meta of build.cache.metadata.sources) {
        if (meta['health_check'] === undefined) continue;
        try {
          parseHealthCheck(meta['health_check'], '$.health_check');
        } catch (e) {
          build.addInconsistency({
            type: 'health_check',
            name: `health_check ${meta.name}`,
            definition: { source: meta.name, health_check: meta['health_check'] },
            reason: `Inconsistent object: invalid health check configuration: ${(e as Error).message}`,
          });
        }
      }
    });

    hooks.onEvent.tap(PLUGIN_ID, (event) => {
      if (event.type === 'server.started') {
        if (!event.background) return;
        running = true;
        checker.follow(checkedSources(container.resolve<SchemaCacheRef>('schemaCacheRef').current));
      } else if (event.type === 'schema-cache.rebuilt' && running) {
        checker.follow(checkedSources(event.cache));
      } else if (event.type === 'shutdown.started') {
        running = false;
        checker.stop();
      }
    });

    hooks.onHttpRoutes.tap(PLUGIN_ID, ({ router }) => {
      router.get('/healthz/sources', async (ctx) => {
        const session = await authenticateRequest(ctx, hooks);
        if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        ctx.body = state().read(REPORT_KEY) ?? {};
      });
    });
  },
});
