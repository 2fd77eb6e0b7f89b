/**
 * Every hook point of the kernel, in one frozen map. A tap's name is the plugin id; ordering
 * inside a hook uses `stage` (see Stage), never plugin order. Each hook takes one context object
 * so that signatures stay open to change.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap, SyncHook } from 'tapable';
import type Router from '@koa/router';
import type { AuthRequest, Session } from './auth/session.js';
import type { PlatformEvent } from './events.js';
import type { MetadataOperation, OperationContext, OperationResult, ReloadRequest } from './metadata/operation.js';
import type { SchemaCache, SchemaCacheBuildContext } from './schema-cache/cache.js';
import type { SchemaBuildContext, SchemaDraft } from './graphql/schema-draft.js';
import type { AppRouterState } from './http/types.js';
import type { RawRoutes } from './http/raw-routes.js';
import type { LimitContext } from './graphql/execute/limits.js';
import type { AwilixContainer } from 'awilix';
import type { DatabaseKind } from './db/contract.js';

export const Stage = { FIRST: -100, EARLY: -10, DEFAULT: 0, LATE: 10, LAST: 100 } as const;

export type { LimitContext, LimitedOperation } from './graphql/execute/limits.js';
export type { SchemaCacheBuildContext } from './schema-cache/cache.js';

/**
 * A metadata change about to be persisted: the snapshot it replaces, the one it builds, and what
 * the request asked to reload. Taps bring the databases in line (event-trigger captures); a tap
 * that throws fails the request and nothing is persisted.
 */
export interface MetadataApplyContext {
  previous: SchemaCache;
  next: SchemaCache;
  reload: ReloadRequest | null;
  /**
   * Work that must follow the change only once it is persisted and installed (data that goes
   * with a dropped object, rows generated for a new one): run after the commit, in order; a
   * refused or failed commit never runs it. Its failures are logged, as the change stands.
   */
  afterCommit(work: () => Promise<void>): void;
}

export interface HttpRoutesContext {
  router: Router<AppRouterState>;
  /** Plain Node handlers for hot endpoints, served before koa (see core/http/raw-routes.ts). */
  raw: RawRoutes;
}

/** What is known once every plugin has registered: the container and the loaded database kinds. */
export interface PluginsRegisteredContext {
  container: AwilixContainer;
  kinds: readonly DatabaseKind[];
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
     * `undefined` means "not mine". admin-secret taps EARLY, unauthorized-role LAST. A synchronous
     * tap may answer with a promise of a Session when it has to wait (JWT on a session-cache
     * miss): that is its final answer, as a returned Session is. When every tap is synchronous,
     * requests are authenticated without a promise (core/http/auth.ts, authenticateNow).
     */
    onRequestAuth: new AsyncSeriesBailHook<[AuthRequest], Session | Promise<Session> | undefined>(['request']),
    /**
     * Once per GraphQL operation, after authentication and validation, before execution; an
     * enforcer throws an EngineError to refuse it. See core/graphql/execute/limits.ts for how an
     * enforcer says when it has nothing to do (so the hot path skips the hook entirely).
     */
    onRequestLimit: new AsyncSeriesHook<[LimitContext]>(['limit']),
    /**
     * After a schema-cache snapshot is built from metadata, before it is used: plugins that own a
     * part of the metadata (query collections, REST endpoints, ...) check it against the built
     * sources and schemas and record what fails as inconsistent objects. Taps that contribute to
     * the schema (remote schemas, actions, custom types) run at DEFAULT; taps that validate
     * queries against a role's schema run LATE, because a role's schema is built once per
     * snapshot and must already hold every contribution.
     */
    onSchemaCacheBuild: new AsyncSeriesHook<[SchemaCacheBuildContext]>(['build']),
    /**
     * Runs after a metadata change passed its checks and before it is persisted (and before
     * reload-only requests install their rebuild); throwing refuses the change.
     */
    onMetadataApply: new AsyncSeriesHook<[MetadataApplyContext]>(['apply']),
    /** Notifications (server started, metadata changed, shutdown started); results ignored. */
    onEvent: new AsyncSeriesHook<[PlatformEvent]>(['event']),
    /** API plugins add their routes to the router; called once when the HTTP app is built. */
    onHttpRoutes: new SyncHook<[HttpRoutesContext]>(['http']),
    /**
     * Called once by the kernel after every plugin (and test override) is registered, so that
     * what depends on the set of loaded kinds (per-kind metadata operations) can be wired.
     */
    onPluginsRegistered: new SyncHook<[PluginsRegisteredContext]>(['registered']),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
