/**
 * Builds a SchemaCache snapshot from a metadata document: connects and introspects each source,
 * resolves its metadata against the catalog, and collects what fails as inconsistent objects.
 * Nothing here throws for a bad source or table: the rest of the metadata keeps serving.
 */
import type { AwilixContainer } from 'awilix';
import type { GraphQLNamedType } from 'graphql';
import type { DatabaseCatalog } from '../db/catalog.js';
import { findDatabaseKind } from '../db/registry.js';
import type { DatabaseKind, RelationshipCheck } from '../db/contract.js';
import { scalarTypesOf } from '../db/scalar-types.js';
import type { InconsistentObject, MetadataDocument, SourceMetadata } from '../metadata/types.js';
import { ADMIN_ROLE } from '../auth/session.js';
import type { RoleSchema, SharedViews } from '../graphql/schema-draft.js';
import { resolveSource } from './resolve/index.js';
import { roleShape } from './role-shape.js';
import type { ResolvedSource, ResolvedTable } from './model.js';
import type { ReloadRequest, SchemaCache, SchemaCacheBuildContext } from './cache.js';
import type { SourceConnections } from './connections.js';
import { ProvidedFeatures, unenforcedMetadata } from '../features/index.js';
import { freezeDocument } from '../metadata/cow-draft.js';
import { carriableRoles } from './carry.js';

export interface BuildOptions {
  /** Catalogs already introspected during this request, reused instead of introspecting again. */
  catalogs?: ReadonlyMap<string, DatabaseCatalog>;
  /** What the request asked to re-read (reload_metadata and friends), for plugins' own caches. */
  reload?: ReloadRequest | null;
  /**
   * Sources whose catalog must be introspected again even if their catalog fingerprint did not
   * move (`true`: every source); others reuse their last catalog while it is unchanged.
   */
  freshCatalogs?: boolean | ReadonlySet<string>;
  /**
   * The snapshot this one is an incremental change of (an ordinary metadata operation, no reload,
   * no database change): roles whose schema inputs are unchanged take its built schemas
   * (carry.ts) instead of building their own again, and tables whose resolution read nothing
   * that changed are taken over as resolved (resolve/reuse.ts).
   */
  previous?: SchemaCache;
}

export interface BuilderDeps {
  container: AwilixContainer;
  connections: SourceConnections;
  /**
   * One role's GraphQL schema for a snapshot (the `onSchemaBuild` hook, then assembly: the
   * service wires it, so the cache does not reach up into schema generation). `share.schema`: the
   * schema of a role of the same shape (role-shape.ts), whose GraphQLSchema the new role takes
   * with its own planners (or builds its own if that one failed or turns out to differ).
   * `share.types`: the read types of the roles whose select side is alike (SchemaDraft.sharedTypes);
   * `share.views`: the table views of the roles whose select side is alike down to row filters and
   * limits (SchemaDraft.sharedViews).
   */
  roleSchema(cache: SchemaCache, role: string, share?: RoleSchemaSharing): Promise<RoleSchema>;
  /** The checks of plugins owning metadata beyond sources (the `onSchemaCacheBuild` hook). */
  checkBuild(build: SchemaCacheBuildContext): Promise<void>;
}

export interface RoleSchemaSharing {
  schema?: Promise<RoleSchema>;
  types?: Map<string, GraphQLNamedType>;
  views?: SharedViews;
}

let nextVersion = 1;
/** Each snapshot's role schemas by key (`''`: roles without permissions), for the next snapshot to carry. */
const builtSchemas = new WeakMap<SchemaCache, Map<string, Promise<RoleSchema>>>();
const NO_FEATURES = new ProvidedFeatures([]);

export async function buildSchemaCache(
  deps: BuilderDeps,
  metadata: MetadataDocument,
  resourceVersion: number,
  options: BuildOptions = {},
): Promise<SchemaCache> {
  // A snapshot's metadata is immutable: drafts share its entries (core/metadata/cow-draft.ts).
  freezeDocument(metadata);
  const sources = new Map<string, ResolvedSource>();
  const inconsistent: InconsistentObject[] = [];
  await Promise.all(
    metadata.sources.map(async (meta) => {
      const fresh = options.freshCatalogs === true || (options.freshCatalogs instanceof Set && options.freshCatalogs.has(meta.name));
      const result = await buildSource(deps, meta, options.catalogs?.get(meta.name), fresh, options.previous?.sources.get(meta.name));
      if ('source' in result) {
        sources.set(meta.name, result.source);
        inconsistent.push(...result.inconsistencies);
      } else {
        inconsistent.push(result.inconsistent);
      }
    }),
  );
  // Keep the metadata's source order in reports, whatever order introspection finished in.
  const order = new Map(metadata.sources.map((s, i) => [s.name, i] as const));
  inconsistent.sort((a, b) => (order.get(sourceOf(a)) ?? 0) - (order.get(sourceOf(b)) ?? 0));
  const features = deps.container.hasRegistration('features') ? deps.container.resolve<ProvidedFeatures>('features') : NO_FEATURES;
  inconsistent.push(...unenforcedMetadata(metadata, features));

  const roles = new Set<string>([ADMIN_ROLE]);
  for (const source of sources.values()) for (const table of source.tables.values()) for (const role of permissionRoles(table)) roles.add(role);

  const schemas = new Map<string, Promise<RoleSchema>>();
  // The first role of each shape builds the GraphQLSchema; later roles of that shape share it.
  // Roles whose select side is alike share their read types, and their views when it is alike
  // down to the row filters.
  const byShape = new Map<string, Promise<RoleSchema>>();
  const typeGroups = new Map<string, Map<string, GraphQLNamedType>>();
  const viewGroups = new Map<string, SharedViews>();
  const buildRoleSchema = (role: string): Promise<RoleSchema> => {
    const shape = roles.has(role) ? roleShape(cache)(role) : null;
    if (shape === null) return deps.roleSchema(cache, role);
    const sharing: RoleSchemaSharing = {};
    if (shape.types !== null) {
      let types = typeGroups.get(shape.types);
      if (!types) typeGroups.set(shape.types, (types = new Map()));
      sharing.types = types;
    }
    if (shape.views !== null) {
      let views = viewGroups.get(shape.views);
      if (!views) viewGroups.set(shape.views, (views = new Map()));
      sharing.views = views;
    }
    const leader = byShape.get(shape.schema);
    if (leader) return deps.roleSchema(cache, role, { schema: leader, ...sharing });
    const own = deps.roleSchema(cache, role, sharing);
    byShape.set(shape.schema, own);
    own.catch(() => {
      if (byShape.get(shape.schema) === own) byShape.delete(shape.schema);
    });
    return own;
  };
  const cache: SchemaCache = {
    version: nextVersion++,
    resourceVersion,
    metadata,
    sources,
    inconsistentObjects: inconsistent,
    roles,
    schemaFor(role: string): Promise<RoleSchema> {
      // Roles without any permission all see the same (empty) schema: build it once.
      const key = roles.has(role) ? role : '';
      let schema = schemas.get(key);
      if (!schema) {
        schema = buildRoleSchema(role);
        schemas.set(key, schema);
        schema.catch(() => schemas.delete(key));
      }
      return schema;
    },
  };
  // Metadata beyond sources (query collections, REST endpoints, ...) is checked by its plugins.
  await deps.checkBuild({
    cache,
    addInconsistency: (o) => inconsistent.push(o),
    addRole: (role) => roles.add(role),
    reload: options.reload ?? null,
  });
  builtSchemas.set(cache, schemas);
  // After the plugins' checks: inherited roles' permissions are derived into the tables by then.
  if (options.previous) carrySchemas(options.previous, cache, schemas);
  return cache;
}

/**
 * The roles holding a permission on a table as resolved, kept per table object: a table taken
 * over from the last snapshot (resolve/reuse.ts) is the same object, and nothing writes into it.
 */
const tableRoles = new WeakMap<ResolvedTable, readonly string[]>();
function permissionRoles(table: ResolvedTable): readonly string[] {
  let roles = tableRoles.get(table);
  if (!roles) {
    const set = new Set<string>();
    for (const map of Object.values(table.permissions)) for (const role of map.keys()) set.add(role);
    tableRoles.set(table, (roles = [...set]));
  }
  return roles;
}

/** Takes the previous snapshot's schemas (built or under way) of every role carry.ts allows. */
function carrySchemas(previous: SchemaCache, cache: SchemaCache, schemas: Map<string, Promise<RoleSchema>>): void {
  const theirs = builtSchemas.get(previous);
  if (!theirs || theirs.size === 0) return;
  const carriable = carriableRoles(previous, cache);
  for (const [key, schema] of theirs) {
    if (!carriable.has(key)) continue;
    schemas.set(key, schema);
    schema.catch(() => {
      if (schemas.get(key) === schema) schemas.delete(key);
    });
  }
}

/**
 * Called when `next` replaces `previous` as the live snapshot: `previous` forgets the schemas
 * `next` did not carry. A carried schema may hold its snapshot (planners keep what they were built
 * from), and that snapshot must not keep its other roles' schemas alive with it; a request still
 * finishing on `previous` builds such a schema again if it needs one.
 */
export function retireRoleSchemas(previous: SchemaCache, next: SchemaCache): void {
  if (previous === next) return;
  const theirs = builtSchemas.get(previous);
  if (!theirs) return;
  const kept = new Set(builtSchemas.get(next)?.values() ?? []);
  for (const [key, schema] of theirs) if (!kept.has(schema)) theirs.delete(key);
}

type SourceBuild = { source: ResolvedSource; inconsistencies: InconsistentObject[] } | { inconsistent: InconsistentObject };

async function buildSource(
  deps: BuilderDeps,
  meta: SourceMetadata,
  known: DatabaseCatalog | undefined,
  fresh: boolean,
  previous: ResolvedSource | undefined,
): Promise<SourceBuild> {
  const fail = (reason: string): SourceBuild => ({
    inconsistent: { type: 'source', name: `source ${meta.name}`, definition: meta, reason: `Inconsistent object: ${reason}` },
  });
  const kind = findDatabaseKind(deps.container, meta.kind);
  if (!kind) return fail(`no database kind plugin serves "${meta.kind}"`);
  try {
    kind.validateConfiguration(meta.configuration, '$.configuration');
    const connection = deps.connections.get(meta.name, kind, meta.configuration);
    const catalog = known ?? (await deps.connections.catalog(meta.name, connection, fresh));
    const resolved = await resolveSource(meta, catalog, connection, {
      env: deps.container.hasRegistration('env') ? deps.container.resolve<NodeJS.ProcessEnv>('env') : process.env,
      defaultTriggerOnReplication: kind.eventTriggers?.defaultTriggerOnReplication ?? false,
      scalarTypes: scalarTypesOf(kind),
      computedFieldArguments: kind.computedFieldArguments ?? 'row',
      mutations: kind.capabilities?.mutations === true,
      // One rule object per kind: the relationship memo compares it by identity.
      ...(kind.checkRelationship ? { checkRelationship: relationshipRuleOf(kind) } : {}),
      ...(previous ? { previous } : {}),
    });
    resolved.source.capabilities = kind.capabilities ?? {};
    return resolved;
  } catch (e) {
    return fail((e as Error).message);
  }
}

const relationshipRules = new WeakMap<DatabaseKind, (check: RelationshipCheck) => string | null>();
function relationshipRuleOf(kind: DatabaseKind): (check: RelationshipCheck) => string | null {
  let rule = relationshipRules.get(kind);
  if (!rule) {
    rule = (check) => kind.checkRelationship!(check);
    relationshipRules.set(kind, rule);
  }
  return rule;
}

function sourceOf(o: InconsistentObject): string {
  const m = / in source (\S+)$/.exec(o.name) ?? /^source (\S+)$/.exec(o.name);
  return m?.[1] ?? '';
}
