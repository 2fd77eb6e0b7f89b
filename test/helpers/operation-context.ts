/**
 * A minimal OperationContext for plugin unit tests: a draft, hand-written catalogs per source, and
 * a schema cache resolved with the real resolver (enum values from a FakeConnection). `dbKind`
 * returns a stub kind that accepts any configuration object with `connection_info`.
 */
import { createContainer } from 'awilix';
import type { KernelHooks } from '../../core/hooks.js';
import { createTestKernel } from '../../core/kernel/test-kernel.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { EngineError } from '../../core/errors.js';
import { makeSession } from '../../core/auth/session.js';
import type { ServerConfig } from '../../core/config/types.js';
import type { DatabaseCatalog } from '../../core/db/catalog.js';
import type { DatabaseKind, SourceConnection } from '../../core/db/contract.js';
import type { MetadataEndpoint, OperationContext, OperationResult, ReloadRequest } from '../../core/metadata/operation.js';
import type { InconsistentObject, MetadataDocument } from '../../core/metadata/types.js';
import type { SchemaCache } from '../../core/schema-cache/cache.js';
import type { ResolvedSource } from '../../core/schema-cache/model.js';
import { resolveSource } from '../../core/schema-cache/resolve/index.js';
import { FakeConnection, type EnumRows } from './fake-connection.js';
import { scalarTypesOf } from '../../core/db/scalar-types.js';
import { POSTGRES_SCALAR_TYPES } from '../../plugins/db/postgres/scalar-types.js';

export const KIND_BY_PREFIX: Record<string, string> = { pg: 'postgres', sqlb: 'mssql', dist: 'citus', wh: 'bigquery' };

export function stubKind(kindOrPrefix: string): DatabaseKind {
  const prefix = KIND_BY_PREFIX[kindOrPrefix] ? kindOrPrefix : Object.keys(KIND_BY_PREFIX).find((p) => KIND_BY_PREFIX[p] === kindOrPrefix);
  if (!prefix) throw new EngineError('not-supported', `no database kind plugin serves "${kindOrPrefix}"`);
  return {
    kind: KIND_BY_PREFIX[prefix]!,
    prefix,
    // Every stand-in types its columns as PostgreSQL does (the catalogs of these tests are postgres').
    scalarTypes: POSTGRES_SCALAR_TYPES,
    // The postgres stand-in has every capability; the others only what every kind has.
    capabilities: prefix === 'pg' ? { functions: true, computedFields: true, enumTables: true, runSql: true, mutations: true, distinctOn: true, subscriptions: true } : {},
    validateConfiguration(configuration: unknown, path: string): void {
      if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration)) {
        throw new EngineError('parse-failed', 'expected Object, but encountered ' + typeof configuration, { path });
      }
      if (!('connection_info' in configuration)) throw new EngineError('parse-failed', 'key "connection_info" not found', { path });
    },
    connect(): SourceConnection {
      return new FakeConnection();
    },
  };
}

export interface TestContextOptions {
  draft?: MetadataDocument;
  /** Catalogs by source name; a source without one is reported inconsistent, as an unreachable database. */
  catalogs?: Record<string, DatabaseCatalog>;
  enumRows?: EnumRows;
  endpoint?: MetadataEndpoint;
  path?: string;
}

export interface TestOperationContext extends OperationContext {
  changed: boolean;
  reloads: ReloadRequest[];
  inconsistencyAllowed: boolean;
  /** What the operations asked to run after the commit, in order. */
  committed: Array<() => Promise<void>>;
  catalogs: Record<string, DatabaseCatalog>;
}

export async function buildTestCache(
  draft: MetadataDocument,
  catalogs: Record<string, DatabaseCatalog>,
  enumRows: EnumRows = {},
): Promise<SchemaCache> {
  const sources = new Map<string, ResolvedSource>();
  const inconsistentObjects: InconsistentObject[] = [];
  for (const meta of draft.sources) {
    const catalog = catalogs[meta.name];
    if (!catalog) {
      inconsistentObjects.push({
        type: 'source',
        name: `source ${meta.name}`,
        definition: meta,
        reason: 'Inconsistent object: connection to the source failed',
      });
      continue;
    }
    const { source, inconsistencies } = await resolveSource(meta, catalog, new FakeConnection(enumRows), { scalarTypes: scalarTypesOf(stubKind(meta.kind)) });
    sources.set(meta.name, source);
    inconsistentObjects.push(...inconsistencies);
  }
  return {
    version: 1,
    resourceVersion: 1,
    metadata: structuredClone(draft),
    sources,
    inconsistentObjects,
    roles: new Set(['admin']),
    schemaFor: () => Promise.reject(new Error('schemaFor is not available in metadata plugin tests')),
  };
}

export async function makeOperationContext(opts: TestContextOptions = {}): Promise<TestOperationContext> {
  const draft: MetadataDocument = opts.draft ? structuredClone(opts.draft) : { version: 3, sources: [] };
  const catalogs = { ...(opts.catalogs ?? {}) };
  const cache = await buildTestCache(draft, catalogs, opts.enumRows);
  const ctx: TestOperationContext = {
    draft,
    cache,
    session: makeSession('admin', {}),
    endpoint: opts.endpoint ?? 'metadata',
    path: opts.path ?? '$.args',
    config: {} as ServerConfig,
    container: createContainer(),
    changed: false,
    reloads: [],
    inconsistencyAllowed: false,
    committed: [],
    catalogs,
    markChanged() {
      ctx.changed = true;
    },
    requestReload(reload) {
      ctx.reloads.push(reload);
    },
    allowInconsistency() {
      ctx.inconsistencyAllowed = true;
    },
    afterCommit(work) {
      ctx.committed.push(work);
    },
    dbKind: stubKind,
    async catalogFor(sourceName) {
      const c = catalogs[sourceName];
      if (!c) throw new EngineError('unexpected', `no catalog for source "${sourceName}" in this test`);
      return c;
    },
    rebuildPreview: () => buildTestCache(ctx.draft, catalogs, opts.enumRows),
  };
  return ctx;
}

/** The stub kinds of every prefix, as `db.<kind>` container fakes. */
export const stubKindFakes = (): Record<string, DatabaseKind> =>
  Object.fromEntries(Object.keys(KIND_BY_PREFIX).map((prefix) => [`db.${KIND_BY_PREFIX[prefix]}`, stubKind(prefix)]));

/** Hooks of a real kernel booted with only the given plugins and the stub kinds of every prefix. */
export async function hooksWith(...plugins: AnyPlugin[]): Promise<KernelHooks> {
  const kernel = await createTestKernel({ plugins, fakes: stubKindFakes() });
  return kernel.hooks;
}

/** Dispatches one operation the way the metadata service does: `get`, never `for`. */
export async function runOperation(
  hooks: KernelHooks,
  ctx: OperationContext,
  type: string,
  args: unknown,
  version?: number,
): Promise<OperationResult | undefined> {
  const hook = hooks.onMetadataOperation.get(type);
  if (!hook) return undefined;
  return hook.promise(version === undefined ? { type, args } : { type, args, version }, ctx);
}
