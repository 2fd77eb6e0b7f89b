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
  /** The GraphQL schema of a role, built on first use and kept for the snapshot's lifetime. */
  schemaFor(role: string): Promise<RoleSchema>;
}
