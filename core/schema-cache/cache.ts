/**
 * The schema cache: one immutable snapshot of resolved metadata and the per-role GraphQL schemas
 * built from it. A metadata change builds a new snapshot and swaps it in; requests keep the
 * snapshot they started with.
 */
import type { InconsistentObject, MetadataDocument } from '../metadata/types.js';
import type { ResolvedSource } from './model.js';
import type { RoleSchema } from '../graphql/schema-draft.js';

export interface SchemaCache {
  /** Increases with every rebuild in this process; part of the plan-cache key. */
  readonly version: number;
  /** The stored metadata's version; set once, when the snapshot is persisted or loaded. */
  resourceVersion: number;
  readonly metadata: MetadataDocument;
  readonly sources: ReadonlyMap<string, ResolvedSource>;
  readonly inconsistentObjects: readonly InconsistentObject[];
  /** Every role named in any permission, plus `admin`. */
  readonly roles: ReadonlySet<string>;
  /**
   * The GraphQL schema of a role, built on first use and kept for the snapshot's lifetime, or
   * carried over from the snapshot this one was built from when nothing it reads changed
   * (carry.ts).
   */
  schemaFor(role: string): Promise<RoleSchema>;
}

/** Which parts of the metadata a rebuild re-reads from the databases (reload_metadata). */
export interface ReloadRequest {
  /** `true` for all sources, or the names of the sources to introspect again. */
  sources: boolean | string[];
  remoteSchemas: boolean | string[];
  recreateEventTriggers: boolean | string[];
}

/** What `onSchemaCacheBuild` taps see: a freshly built snapshot, before it serves anything. */
export interface SchemaCacheBuildContext {
  readonly cache: SchemaCache;
  /** Record an object of the metadata that cannot be served (it shows in the inconsistency list). */
  addInconsistency(object: InconsistentObject): void;
  /** A role that gets its own schema (one named only by a plugin's permissions, for instance). */
  addRole(role: string): void;
  /**
   * What this build was asked to re-read (reload_metadata, reload_remote_schema); null for an
   * ordinary rebuild, where what a plugin fetched for an unchanged definition may be reused.
   */
  readonly reload: ReloadRequest | null;
}
