/**
 * The koa application: request ids, CORS, gzip, structured http logs, error rendering, the health
 * and version endpoints, and whatever routes API plugins add on `onHttpRoutes`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import compress from 'koa-compress';
import type { AwilixContainer } from 'awilix';
import { asValue } from 'awilix';
import type { ServerConfig } from '../config/types.js';
import type { KernelHooks } from '../hooks.js';
import type { Logger } from '../logger.js';
import { ENGINE_VERSION } from '../version.js';
import { EngineError } from '../errors.js';
import { cors, originMatcher } from './cors.js';
import { RawRoutes, dispatchRaw, logHttp, requestIdOf } from './raw-routes.js';
import { renderError } from './error-response.js';
import type { AppRouterState } from './types.js';

export interface HttpAppDeps {
  config: ServerConfig;
  hooks: KernelHooks;
  logger: Logger;
  container: AwilixContainer;
  /** Whether the live metadata has inconsistent objects (for /healthz?strict=true). */
  isMetadataConsistent(): boolean;
}

/** The server's request listener: raw routes first, everything else through the koa app. */
export function createRequestListener(deps: HttpAppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const raw = new RawRoutes();
  const app = createHttpApp(deps, raw);
  const koa = app.callback();
  const dispatch = { logger: deps.logger, corsAllowed: deps.config.disableCors ? null : originMatcher(deps.config.corsDomain) };
  return (req, res) => {
    const handler = raw.match(req);
    if (handler) void dispatchRaw(handler, req, res, dispatch);
    else void koa(req, res);
  };
}

export function createHttpApp(deps: HttpAppDeps, raw: RawRoutes = new RawRoutes()): Koa<AppRouterState> {
  const { config, hooks, logger, container } = deps;
  const app = new Koa<AppRouterState>({ proxy: false });
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.req);
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    // The awilix scope costs a container per request; most requests never ask for it.
    let scope: AwilixContainer | undefined;
    Object.defineProperty(ctx.state, 'scope', {
      get() {
        if (!scope) {
          scope = container.createScope();
          scope.register({ requestId: asValue(requestId) });
        }
        return scope;
      },
    });
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new EngineError('not-found', 'resource does not exist', { status: 404 });
      }
    } catch (e) {
      renderError(ctx, e, config, logger);
    } finally {
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
  if (!config.disableCors) app.use(cors(config.corsDomain));
  const gzip = compress({ threshold: 1024 });
  // Most API clients send no Accept-Encoding; skip the compression middleware's per-response checks for them.
  app.use((ctx, next) => (ctx.req.headers['accept-encoding'] ? gzip(ctx, next) : next()));

  const router = new Router<AppRouterState>();
  router.get('/healthz', (ctx) => {
    const consistent = deps.isMetadataConsistent();
    ctx.type = 'text/plain';
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
