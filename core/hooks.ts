/**
 * Every hook point of the kernel, in one frozen map. A tap's name is the plugin id; ordering
 * inside a hook uses `stage` (see Stage), never plugin order. Each hook takes one context object
 * so that signatures stay open to change.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap, SyncHook } from 'tapable';
import type Router from '@koa/router';
import type { AuthRequest, Session } from './auth/session.js';
import type { PlatformEvent } from './events.js';
import type { MetadataOperation, OperationContext, OperationResult } from './metadata/operation.js';
import type { SchemaBuildContext, SchemaDraft } from './graphql/schema-draft.js';
import type { AppRouterState } from './http/types.js';
import type { RawRoutes } from './http/raw-routes.js';

export const Stage = { FIRST: -100, EARLY: -10, DEFAULT: 0, LATE: 10, LAST: 100 } as const;

/** What an API-limit enforcer sees: after authentication, before execution. */
export interface LimitContext {
  session: Session;
  /** `graphql` requests carry the parsed operation(s); others only the endpoint. */
  endpoint: string;
  operationCount: number;
  ip: string;
}

export interface HttpRoutesContext {
  router: Router<AppRouterState>;
  /** Plain Node handlers for hot endpoints, served before koa (see core/http/raw-routes.ts). */
  raw: RawRoutes;
}

export function createHooks() {
  return Object.freeze({
    /**
     * Keyed by operation type. The first tap returning a result answers; `undefined` passes to
     * the next tap. Dispatch with `.get(type)`: `.for(type)` would create an empty hook.
     */
    onMetadataOperation: new HookMap(
      (type: string) =>
        new AsyncSeriesBailHook<[MetadataOperation, OperationContext], OperationResult | undefined>(['op', 'ctx'], type),
    ),
    /**
     * Waterfall over one role's schema draft: database plugins add root fields at DEFAULT,
     * permission and limit plugins narrow them at LATE. Each tap returns the draft.
     */
    onSchemaBuild: new AsyncSeriesWaterfallHook<[SchemaDraft, SchemaBuildContext]>(['draft', 'ctx']),
    /**
     * Bail: the first auth mode returning a Session wins; throw an EngineError to reject;
     * `undefined` means "not mine". admin-secret taps EARLY, unauthorized-role LAST.
     */
    onRequestAuth: new AsyncSeriesBailHook<[AuthRequest], Session | undefined>(['request']),
    /** Runs after authentication, before execution; an enforcer throws to reject the request. */
    onRequestLimit: new AsyncSeriesHook<[LimitContext]>(['limit']),
    /** Notifications (server started, metadata changed, shutdown started); results ignored. */
    onEvent: new AsyncSeriesHook<[PlatformEvent]>(['event']),
    /** API plugins add their routes to the router; called once when the HTTP app is built. */
    onHttpRoutes: new SyncHook<[HttpRoutesContext]>(['http']),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
