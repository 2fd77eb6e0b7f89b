/**
 * The koa application: request ids, CORS, gzip, structured http logs, error rendering, the health
 * and version endpoints, and whatever routes API plugins add on `onHttpRoutes`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Koa from 'koa';
import Router from '@koa/router';
import compress from 'koa-compress';
import type { AwilixContainer } from 'awilix';
import type { ServerConfig } from '../config/types.js';
import type { KernelHooks } from '../hooks.js';
import type { Logger } from '../logger.js';
import { ENGINE_VERSION } from '../version.js';
import { EngineError } from '../errors.js';
import { cors, corsPolicy } from './cors.js';
import { RawRoutes, dispatchRaw, logHttp, recordHttp, requestIdOf } from './raw-routes.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import { tracing } from '../tracing/tracing.js';
import { renderError } from './error-response.js';
import type { AppRouterState } from './types.js';

export interface HttpAppDeps {
  config: ServerConfig;
  hooks: KernelHooks;
  logger: Logger;
  container: AwilixContainer;
  /** Whether the live metadata has inconsistent objects (for /healthz?strict=true). */
  isMetadataConsistent(): boolean;
  /** Whether the metadata database answers now (for /healthz); absent: assumed to. */
  isMetadataStoreReachable?(): Promise<boolean>;
  /** Sent as `x-svc-worker` on every response (--workers in --dev-mode). */
  workerHeader?: string;
}

export interface RequestListeners {
  /** The server's `request` listener: raw routes first, everything else through the koa app. */
  request(req: IncomingMessage, res: ServerResponse): void;
  /** The server's `upgrade` listener (websockets). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export function createRequestListener(deps: HttpAppDeps): RequestListeners {
  const raw = new RawRoutes();
  const app = createHttpApp(deps, raw);
  const koa = app.callback();
  const metrics = deps.container.resolve<MetricsRegistry>('metrics');
  const dispatch = { logger: deps.logger, metrics, cors: deps.config.disableCors ? null : corsPolicy(deps.config) };
  const workerHeader = deps.workerHeader;
  return {
    request(req, res) {
      if (workerHeader !== undefined) res.setHeader('x-svc-worker', workerHeader);
      const handler = raw.match(req);
      if (handler) void dispatchRaw(handler, req, res, dispatch);
      else void koa(req, res);
    },
    upgrade: (req, socket, head) => raw.dispatchUpgrade(req, socket, head),
  };
}

export function createHttpApp(deps: HttpAppDeps, raw: RawRoutes = new RawRoutes()): Koa<AppRouterState> {
  const { config, hooks, logger, container } = deps;
  const metrics = container.resolve<MetricsRegistry>('metrics');
  const app = new Koa<AppRouterState>({ proxy: false });
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.req);
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    try {
      if (tracing.active) {
        await tracing.serverSpan(`${ctx.method} ${ctx.path}`, ctx.req.headers, { 'http.request.method': ctx.method, 'svc.request_id': requestId }, async (span) => {
          await next();
          span.setAttribute('http.response.status_code', ctx.status);
          span.setAttribute('http.route', endpointLabel(ctx));
        });
      } else {
        await next();
      }
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new EngineError('not-found', 'resource does not exist', { status: 404 });
      }
    } catch (e) {
      renderError(ctx, e, config, logger);
    } finally {
      if (metrics.enabled) recordHttp(metrics, endpointLabel(ctx), ctx.state.operationType ?? '', ctx.status, started);
      logHttp(logger, {
        requestId,
        method: ctx.method,
        url: ctx.path,
        status: ctx.status,
        ip: ctx.ip,
        httpVersion: ctx.req.httpVersion,
        startedNs: started,
      });
    }
  });
  if (!config.disableCors) app.use(cors(corsPolicy(config)));
  const gzip = compress({ threshold: 1024 });
  // Most API clients send no Accept-Encoding; skip the compression middleware's per-response checks for them.
  app.use((ctx, next) => (ctx.req.headers['accept-encoding'] ? gzip(ctx, next) : next()));

  const router = new Router<AppRouterState>();
  router.get('/healthz', async (ctx) => {
    ctx.type = 'text/plain';
    // As the reference engine: the metadata database being unreachable is an outage (500 ERROR).
    if (deps.isMetadataStoreReachable && !(await deps.isMetadataStoreReachable())) {
      ctx.status = 500;
      ctx.body = 'ERROR';
      return;
    }
    const consistent = deps.isMetadataConsistent();
    if (consistent) {
      ctx.body = 'OK';
    } else if (ctx.query['strict'] === 'true') {
      ctx.status = 500;
      ctx.body = 'ERROR';
    } else {
      ctx.body = 'WARN: inconsistent objects in schema';
    }
  });
  router.get('/v1/version', (ctx) => {
    ctx.body = { version: ENGINE_VERSION };
  });
  hooks.onHttpRoutes.call({ router, raw });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/**
 * The route pattern that answered (`/api/rest/:path*` rather than each URL), so the label's values
 * stay few; `unmatched` for 404s of unknown paths.
 */
function endpointLabel(ctx: object): string {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === 'string' ? route : 'unmatched';
}
