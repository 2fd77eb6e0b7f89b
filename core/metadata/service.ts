/**
 * Runs metadata requests: one operation or a bulk, dispatched by type on `onMetadataOperation`.
 * All operations of a request work on one draft; the draft is rebuilt into a schema cache and
 * persisted only if every operation succeeded and no new inconsistency appeared, so a failed bulk
 * changes nothing. Writes are serialised in-process and checked against the stored
 * resource_version across processes.
 */
import type { AwilixContainer } from 'awilix';
import type { DatabaseCatalog } from '../db/catalog.js';
import { requireDatabaseKind } from '../db/registry.js';
import { EngineError, isEngineError } from '../errors.js';
import type { KernelHooks } from '../hooks.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { isAdmin, type Session } from '../auth/session.js';
import { buildSchemaCache, retireRoleSchemas, type BuilderDeps } from '../schema-cache/builder.js';
import { emptySchemaDraft } from '../graphql/schema-draft.js';
import { assembleRoleSchema, shareRoleSchema } from '../graphql/schema/index.js';
import type { SchemaCache } from '../schema-cache/cache.js';
import type { SchemaCacheRef } from '../schema-cache/ref.js';
import type { SourceConnections } from '../schema-cache/connections.js';
import type { MetadataStore, PendingMetadataWrite } from './store.js';
import type { InconsistentObject, MetadataDocument } from './types.js';
import { dataOperationTypes, type MetadataEndpoint, type MetadataOperation, type OperationContext, type OperationResult, type ReloadRequest } from './operation.js';
import { Mutex } from './mutex.js';
import { jsonTypeName } from '../json-type.js';
import { MetadataDraft } from './cow-draft.js';

/**
 * Other processes of this engine (--workers): told of a change this process made and installed,
 * and awaited before the request answers, so the next request sees it whichever worker serves it.
 */
export interface MetadataPeers {
  changed(change: PeerChange): Promise<void>;
}

export interface PeerChange {
  resourceVersion: number;
  /** What the request re-read from the databases (reload_metadata, run_sql); peers re-read it too. */
  reload: ReloadRequest | null;
}

export interface MetadataServiceDeps {
  peers?: MetadataPeers;
  store: MetadataStore;
  ref: SchemaCacheRef;
  connections: SourceConnections;
  container: AwilixContainer;
  hooks: KernelHooks;
  config: ServerConfig;
  logger: Logger;
}

interface RequestState {
  changed: boolean;
  reload: ReloadRequest | null;
  allowInconsistent: boolean;
  /** What new inconsistencies are judged against when set (after a reload), instead of the live cache's. */
  accepted: readonly InconsistentObject[] | null;
  catalogs: Map<string, DatabaseCatalog>;
  preview: { cache: SchemaCache } | null;
  /** Work to run once the change is committed (`afterCommit` of operations and apply taps). */
  committed: Array<() => Promise<void>>;
  /** Sources whose database this request changed (run_sql): their catalogs are read afresh. */
  invalidated: Set<string>;
  /** The document sent to the store ahead of the decision to keep it (`writeAhead`), if any. */
  ahead: { document: MetadataDocument; write: PendingMetadataWrite } | undefined;
}

interface DraftRef {
  readonly draft: MetadataDraft;
}

export class MetadataService {
  private readonly mutex = new Mutex();

  constructor(private readonly deps: MetadataServiceDeps) {}

  private get builderDeps(): BuilderDeps {
    return schemaCacheBuilderDeps(this.deps);
  }

  /** Handles one request body on a metadata endpoint for an authenticated session. */
  async handle(body: unknown, session: Session, endpoint: MetadataEndpoint): Promise<OperationResult> {
    const dataOnly = (endpoint === 'query' || endpoint === 'schema') && this.isDataRequest(body);
    if (!isAdmin(session) && !dataOnly) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
    const op = parseOperation(body, '$');
    const bulk = op.type === 'bulk';
    let ops: MetadataOperation[];
    if (bulk) {
      if (!Array.isArray(op.args)) throw new EngineError('parse-failed', 'expected Array, but encountered Object', { path: '$.args' });
      ops = op.args.map((o, i) => parseOperation(o, `$.args[${i}]`));
    } else {
      ops = [op];
    }
    // Data operations never change the metadata: they need neither the write lock nor a fresh read.
    if (dataOnly) return this.run(ops, bulk, op.resource_version, session, endpoint, false);
    const changes: PeerChange[] = [];
    const result = await this.mutex.run(() => this.run(ops, bulk, op.resource_version, session, endpoint, true, changes));
    // Outside the mutex: a worker catching up with another's change takes its own mutex, and two
    // workers each waiting for the other while holding theirs would deadlock.
    if (this.deps.peers) for (const change of changes) await this.deps.peers.changed(change);
    return result;
  }

  /** A single data operation, or a non-empty bulk of them only (see `dataOperationTypes`). */
  private isDataRequest(body: unknown): boolean {
    const types = dataOperationTypes(this.deps.container);
    const typeOf = (o: unknown): string | undefined =>
      typeof o === 'object' && o !== null && typeof (o as { type?: unknown }).type === 'string' ? (o as { type: string }).type : undefined;
    const type = typeOf(body);
    if (type !== 'bulk') return type !== undefined && types.has(type);
    const items = (body as { args?: unknown }).args;
    return Array.isArray(items) && items.length > 0 && items.every((i) => types.has(typeOf(i) ?? ''));
  }

  /** Reloads the metadata from the store if another engine changed it; returns the live cache. */
  async syncFromStore(): Promise<SchemaCache> {
    return this.mutex.run(() => this.freshen());
  }

  /**
   * Another worker of this engine changed the metadata (or re-read databases): catch up now. A
   * reload rebuilds even when the stored version did not move, re-reading what the peer re-read.
   */
  async applyPeerChange(change: PeerChange): Promise<void> {
    await this.mutex.run(async () => {
      if (change.reload === null) {
        await this.freshen();
        return;
      }
      const live = this.deps.ref.current;
      const { metadata, resourceVersion } = await this.deps.store.read();
      const reload = change.reload;
      const catalogs = new Map<string, DatabaseCatalog>();
      if (reload.sources !== true) {
        const names = reload.sources === false ? [] : reload.sources;
        for (const [name, source] of live.sources) if (!names.includes(name)) catalogs.set(name, source.catalog);
      }
      const freshCatalogs = reload.sources === true ? true : new Set(reload.sources === false ? [] : reload.sources);
      this.install(await buildSchemaCache(this.builderDeps, metadata, resourceVersion, { catalogs, reload, freshCatalogs }), 'remote');
    });
  }

  private async freshen(): Promise<SchemaCache> {
    const live = this.deps.ref.current;
    const stored = await this.deps.store.resourceVersion();
    if (stored === live.resourceVersion) return live;
    const { metadata, resourceVersion } = await this.deps.store.read();
    const cache = await buildSchemaCache(this.builderDeps, metadata, resourceVersion);
    this.install(cache, 'remote');
    return cache;
  }

  private install(cache: SchemaCache, origin: 'local' | 'remote'): void {
    const previous = this.deps.ref.current;
    this.deps.ref.swap(cache);
    retireRoleSchemas(previous, cache);
    void this.deps.connections.retain(new Set(cache.metadata.sources.map((s) => s.name)));
    if (cache.resourceVersion !== previous.resourceVersion) {
      this.deps.logger.info('metadata', { message: 'metadata changed', resource_version: cache.resourceVersion, origin });
      void this.deps.hooks.onEvent.promise({ type: 'metadata.changed', resourceVersion: cache.resourceVersion, origin });
    }
    void this.deps.hooks.onEvent.promise({ type: 'schema-cache.rebuilt', cache });
  }

  private async run(
    ops: MetadataOperation[],
    bulk: boolean,
    resourceVersion: number | undefined,
    session: Session,
    endpoint: MetadataEndpoint,
    lock: boolean,
    changes: PeerChange[] = [],
  ): Promise<OperationResult> {
    const cache = lock ? await this.freshen() : this.deps.ref.current;
    if (resourceVersion !== undefined && resourceVersion !== cache.resourceVersion) {
      throw new EngineError(
        'conflict',
        `metadata resource version referenced (${resourceVersion}) did not match current version`,
        { status: 409, path: '$' },
      );
    }
    const state: RequestState = {
      changed: false,
      reload: null,
      allowInconsistent: false,
      accepted: null,
      catalogs: new Map(),
      preview: null,
      committed: [],
      invalidated: new Set(),
      ahead: undefined,
    };
    // Made on first use: requests that only read (data operations) never pay for it. A draft
    // copies only what its operations write (core/metadata/cow-draft.ts).
    let draft: MetadataDraft | undefined;
    const draftRef: DraftRef = {
      get draft(): MetadataDraft {
        return (draft ??= new MetadataDraft(cache.metadata));
      },
    };

    try {
      return await this.runOperations(ops, bulk, cache, session, endpoint, lock, changes, state, draftRef);
    } catch (e) {
      await state.ahead?.write.abort();
      throw e;
    }
  }

  private async runOperations(
    ops: MetadataOperation[],
    bulk: boolean,
    cache: SchemaCache,
    session: Session,
    endpoint: MetadataEndpoint,
    lock: boolean,
    changes: PeerChange[],
    state: RequestState,
    draftRef: DraftRef,
  ): Promise<OperationResult> {
    const results: unknown[] = [];
    let status = 200;
    for (const [i, op] of ops.entries()) {
      const opPath = bulk ? `$.args[${i}]` : '$';
      const ctx = this.context(draftRef, cache, session, endpoint, `${opPath}.args`, state, lock, i === ops.length - 1);
      let result: OperationResult | undefined;
      try {
        const hook = this.deps.hooks.onMetadataOperation.get(op.type);
        result = hook ? await hook.promise(op, ctx) : undefined;
      } catch (e) {
        throw withOperationPath(e, opPath, `${opPath}.args`);
      }
      if (!result) throw unknownOperation(op.type, endpoint, `${opPath}.type`);
      results.push(result.body);
      if (result.status !== undefined) status = result.status;
    }

    if (!lock && (state.changed || state.reload)) {
      throw new EngineError('unexpected', 'a data operation tried to change the metadata', { status: 500, path: '$' });
    }
    if (state.changed || state.reload) {
      if (state.changed && this.deps.config.enableMaintenanceMode) {
        throw new EngineError('not-supported', 'metadata cannot be modified in maintenance mode', { path: '$' });
      }
      const document = draftRef.draft.current();
      // Unless an operation's own check built it already (with the write sent then), the new
      // schema cache is built while the database stores the document.
      if (state.changed) await this.writeAhead(document, cache, state);
      const next = await this.preview(document, cache, state);
      if (state.changed) {
        const added = newInconsistencies(state.accepted ?? cache.inconsistentObjects, next.inconsistentObjects);
        if (added.length > 0 && !state.allowInconsistent) {
          throw new EngineError('unexpected', 'cannot continue due to new inconsistent metadata', {
            status: 400,
            path: '$.args',
            internal: added,
          });
        }
      }
      const committed = state.committed;
      await this.deps.hooks.onMetadataApply.promise({ previous: cache, next, reload: state.reload, afterCommit: (work) => committed.push(work) });
      const ahead = state.ahead;
      state.ahead = undefined;
      if (state.changed && ahead?.document === next.metadata) next.resourceVersion = await ahead.write.commit();
      else {
        await ahead?.write.abort();
        if (state.changed) next.resourceVersion = await this.deps.store.write(next.metadata, cache.resourceVersion);
      }
      this.install(next, 'local');
      changes.push({ resourceVersion: next.resourceVersion, reload: state.reload });
      for (const work of committed) {
        try {
          await work();
        } catch (e) {
          this.deps.logger.warn('metadata', { message: 'work following a committed metadata change failed', error: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    return { body: bulk ? results : results[0], status };
  }

  /**
   * Sends `document` to the store before the engine decides to keep it (`MetadataStore.beginWrite`):
   * the UPDATE runs while the schema cache is built and is committed once the change is accepted,
   * else rolled back, so nobody reads a document the engine did not keep. At 1,000 tables the
   * write is about 30 ms in the database, which then overlaps the build instead of following it. Sent
   * when the request's last operation has its draft built (its consistency check) or, when none
   * did, before the final build; a later build of another draft replaces it.
   */
  private async writeAhead(document: MetadataDocument, cache: SchemaCache, state: RequestState): Promise<void> {
    if (document === cache.metadata || state.ahead?.document === document || this.deps.config.enableMaintenanceMode) return;
    const replaced = state.ahead;
    state.ahead = undefined;
    await replaced?.write.abort();
    const write = await this.deps.store.beginWrite?.(document, cache.resourceVersion);
    state.ahead = write === undefined ? undefined : { document, write };
  }

  private async preview(draft: MetadataDocument, cache: SchemaCache, state: RequestState): Promise<SchemaCache> {
    // The snapshot built last in this request holds the frozen draft it was built from, and an
    // unchanged draft answers the same frozen document.
    if (state.preview && state.preview.cache.metadata === draft) return state.preview.cache;
    const catalogs = new Map(state.catalogs);
    const reload = state.reload;
    if (reload && reload.sources !== true) {
      // Sources not named for reload keep the catalog they were built with.
      const names = reload.sources === false ? [] : reload.sources;
      for (const [name, source] of cache.sources) {
        if (!names.includes(name) && !catalogs.has(name)) catalogs.set(name, source.catalog);
      }
    }
    const fresh = freshCatalogs(state);
    // Role schemas carry over only from an ordinary change: after a reload or a run_sql that
    // changed a database, what a schema read may have moved without the metadata saying so.
    const incremental = reload === null && fresh !== true && fresh.size === 0;
    const built = await buildSchemaCache(this.builderDeps, draft, cache.resourceVersion, {
      catalogs,
      reload,
      freshCatalogs: fresh,
      ...(incremental ? { previous: cache } : {}),
    });
    for (const [name, source] of built.sources) state.catalogs.set(name, source.catalog);
    state.preview = { cache: built };
    return built;
  }

  private context(
    draftRef: DraftRef,
    cache: SchemaCache,
    session: Session,
    endpoint: MetadataEndpoint,
    path: string,
    state: RequestState,
    lock: boolean,
    last: boolean,
  ): OperationContext {
    const { container, config, connections } = this.deps;
    return {
      get draft() {
        return draftRef.draft.document;
      },
      set draft(value: MetadataDocument) {
        draftRef.draft.replace(value);
      },
      frozenDraft: () => draftRef.draft.current(),
      cache,
      session,
      endpoint,
      path,
      config,
      container,
      markChanged: () => {
        state.changed = true;
      },
      requestReload: (reload) => {
        state.reload = state.reload ? mergeReloads(state.reload, reload) : reload;
        // The database changed under this request (run_sql): catalogs read earlier are stale.
        const names = reload.sources === true ? [...state.catalogs.keys()] : reload.sources === false ? [] : reload.sources;
        for (const name of names) state.catalogs.delete(name);
        if (names.length > 0 || reload.remoteSchemas !== false) state.preview = null;
      },
      invalidateCatalog: (sourceName) => {
        state.catalogs.delete(sourceName);
        state.invalidated.add(sourceName);
        state.preview = null;
      },
      allowInconsistency: () => {
        state.allowInconsistent = true;
      },
      acceptInconsistencies: (objects) => {
        state.accepted = objects;
      },
      afterCommit: (work) => {
        state.committed.push(work);
      },
      dbKind: (kindOrPrefix) => requireDatabaseKind(container, kindOrPrefix),
      catalogFor: async (sourceName) => {
        const known = state.catalogs.get(sourceName);
        if (known) return known;
        const meta = draftRef.draft.current().sources.find((s) => s.name === sourceName);
        if (!meta) throw new EngineError('not-exists', `source with name "${sourceName}" does not exist`, { path });
        const kind = requireDatabaseKind(container, meta.kind);
        const fresh = freshCatalogs(state);
        const connection = connections.get(meta.name, kind, meta.configuration);
        const catalog = await connections.catalog(meta.name, connection, fresh === true || fresh.has(meta.name));
        state.catalogs.set(sourceName, catalog);
        return catalog;
      },
      // Without the lock the request only has data operations: the draft is the live cache's.
      rebuildPreview: lock
        ? async () => {
            const document = draftRef.draft.current();
            if (last) await this.writeAhead(document, cache, state);
            return this.preview(document, cache, state);
          }
        : async () => cache,
    };
  }
}

function parseOperation(body: unknown, path: string): MetadataOperation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new EngineError('parse-failed', `expected Object, but encountered ${jsonTypeName(body)}`, { path });
  }
  const o = body as Record<string, unknown>;
  if (typeof o['type'] !== 'string') {
    throw new EngineError('parse-failed', o['type'] === undefined ? 'key "type" not found' : 'expected String for "type"', {
      path: o['type'] === undefined ? path : `${path}.type`,
    });
  }
  const rv = o['resource_version'];
  if (rv !== undefined && (typeof rv !== 'number' || !Number.isInteger(rv))) {
    throw new EngineError('parse-failed', 'expected Int for "resource_version"', { path: `${path}.resource_version` });
  }
  const version = o['version'];
  if (version !== undefined && typeof version !== 'number') {
    throw new EngineError('parse-failed', 'expected Int for "version"', { path: `${path}.version` });
  }
  return { type: o['type'], args: o['args'] ?? {}, version: version as number | undefined, resource_version: rv as number | undefined };
}


function unknownOperation(type: string, endpoint: MetadataEndpoint, path: string): EngineError {
  const where = { metadata: '/v1/metadata', query: '/v1/query', schema: '/v2/query' }[endpoint];
  return new EngineError('parse-failed', `unknown operation type "${type}" on ${where}`, { path });
}

/** Re-roots an error raised inside an operation so its path points into the request body. */
function withOperationPath(e: unknown, opPath: string, argsPath: string): unknown {
  if (!isEngineError(e)) return e;
  if (opPath === '$' || e.path.startsWith(`${opPath}.`)) return e;
  if (e.path === '$') return e.atPath(argsPath);
  if (e.path.startsWith('$.args')) return e.atPath(opPath + e.path.slice(1));
  return e.atPath(opPath + e.path.slice(1));
}

/** Two reload requests of one bulk: everything either asked to re-read. */
function mergeReloads(a: ReloadRequest, b: ReloadRequest): ReloadRequest {
  const union = (x: boolean | string[], y: boolean | string[]): boolean | string[] =>
    x === true || y === true ? true : x === false ? y : y === false ? x : [...new Set([...x, ...y])];
  return {
    sources: union(a.sources, b.sources),
    remoteSchemas: union(a.remoteSchemas, b.remoteSchemas),
    recreateEventTriggers: union(a.recreateEventTriggers, b.recreateEventTriggers),
  };
}

/** What a request must read afresh: the sources it asked to reload and those its SQL changed. */
function freshCatalogs(state: RequestState): true | Set<string> {
  const sources = state.reload?.sources ?? false;
  if (sources === true) return true;
  return new Set([...(sources === false ? [] : sources), ...state.invalidated]);
}

function newInconsistencies(before: readonly InconsistentObject[], after: readonly InconsistentObject[]): InconsistentObject[] {
  const key = (o: InconsistentObject) => `${o.type}\u0000${o.name}\u0000${o.reason}`;
  const old = new Set(before.map(key));
  return after.filter((o) => !old.has(key(o)));
}

/**
 * What the schema-cache builder needs from above it: role schemas come from the `onSchemaBuild`
 * hook and graphql/schema's assembly, and the checks of other metadata from `onSchemaCacheBuild`.
 */
export function schemaCacheBuilderDeps(deps: Pick<MetadataServiceDeps, 'container' | 'hooks' | 'config' | 'connections'>): BuilderDeps {
  const { container, hooks, config, connections } = deps;
  return {
    container,
    connections,
    roleSchema: async (cache, role, share = {}) => {
      const empty = emptySchemaDraft();
      if (share.types) empty.sharedTypes = share.types;
      if (share.views) empty.sharedViews = share.views;
      const draft = await hooks.onSchemaBuild.promise(empty, { role, cache, config });
      const leader = share.schema ? await share.schema.catch(() => null) : null;
      return (leader && shareRoleSchema(draft, role, leader)) ?? assembleRoleSchema(draft, role);
    },
    checkBuild: async (build) => {
      if (hooks.onSchemaCacheBuild.isUsed()) await hooks.onSchemaCacheBuild.promise(build);
    },
  };
}
