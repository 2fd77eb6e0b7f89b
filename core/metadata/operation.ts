/**
 * The contract between the metadata service and operation handlers. A handler is a tap on
 * `onMetadataOperation.for(type)`: it reads its args, changes `ctx.draft` in place (calling
 * `ctx.markChanged()`), and returns the response body. The service runs the handlers of a request
 * (one, or a bulk) against one draft, rebuilds the schema cache from it, and persists it only if
 * every handler succeeded and no new inconsistency appeared: so a bulk is atomic.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { DatabaseCatalog } from '../db/catalog.js';
import type { DatabaseKind } from '../db/contract.js';
import type { Session } from '../auth/session.js';
import type { ServerConfig } from '../config/types.js';
import type { ReloadRequest, SchemaCache } from '../schema-cache/cache.js';
import type { InconsistentObject, MetadataDocument } from './types.js';

export interface MetadataOperation {
  type: string;
  args: unknown;
  version?: number;
  resource_version?: number;
}

export type { ReloadRequest } from '../schema-cache/cache.js';

/** Which API endpoint the operation arrived on; legacy names only dispatch on `/v1/query`. */
export type MetadataEndpoint = 'metadata' | 'query' | 'schema';

export interface OperationContext {
  /**
   * The working copy of the metadata, shared by every operation of one request. Written in place;
   * it is a copy-on-write draft of the live snapshot's frozen document (core/metadata/cow-draft.ts).
   */
  draft: MetadataDocument;
  /**
   * The draft as it stands, as a frozen document sharing every unchanged entry: cheap, for
   * handlers that read the whole document (export, run_sql's schema change) rather than walk the
   * draft. Absent in some test contexts: fall back to `draft`.
   */
  frozenDraft?(): MetadataDocument;
  /** The live schema cache: the resolved state before this request. */
  readonly cache: SchemaCache;
  readonly session: Session;
  readonly endpoint: MetadataEndpoint;
  /** JSON path of this operation's args (`$.args`, or `$.args[2].args` inside a bulk). */
  readonly path: string;
  readonly config: ServerConfig;
  readonly container: AwilixContainer;
  /** The operation changed `draft`: rebuild and persist after the request. */
  markChanged(): void;
  /** Re-introspect databases when rebuilding (reload_metadata). */
  requestReload(reload: ReloadRequest): void;
  /**
   * The source's database may have changed under this request (run_sql): catalogs read so far
   * are stale, so later operations of a bulk must introspect again. Does not force a rebuild.
   */
  invalidateCatalog?(sourceName: string): void;
  /** Persist even if the rebuilt metadata has inconsistencies (replace_metadata's flag). */
  allowInconsistency(): void;
  /**
   * Later operations of the request are judged against these inconsistencies instead of the live
   * snapshot's (reload_metadata: what the databases now hold is accepted, as the reference does).
   */
  acceptInconsistencies?(objects: readonly InconsistentObject[]): void;
  /**
   * Work on data outside the metadata that must follow this change only once it is committed
   * (an action's stored results on drop): never run when the request fails or is refused.
   */
  afterCommit(work: () => Promise<void>): void;
  /** The database kind plugin serving a kind name (`postgres`) or prefix (`pg`). */
  dbKind(kindOrPrefix: string): DatabaseKind;
  /** The catalog of a source in `draft`: from the live cache, or introspected now for a new source. */
  catalogFor(sourceName: string): Promise<DatabaseCatalog>;
  /** The resolved cache after this request's changes, built on demand (for validating names). */
  rebuildPreview(): Promise<SchemaCache>;
}

/**
 * A response body that is already JSON text (rows as the database wrote them): sent as is, so
 * numbers beyond 2^53 keep every digit. `toJSON` is only a fallback for other serialisers.
 */
export class RawJsonBody {
  constructor(readonly json: string) {}
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

export interface OperationResult {
  /** The JSON response body (a RawJsonBody, or a bulk's array holding some, is sent verbatim). */
  body: unknown;
  /** HTTP status; 200 unless the operation says otherwise. */
  status?: number;
}

/** The standard body of a successful operation that returns nothing else. */
export const SUCCESS: OperationResult = Object.freeze({ body: { message: 'success' } });

const DATA_OPERATIONS_KEY = 'metadataDataOperations';

/**
 * The operation types that work on a source's data rather than on the metadata (the legacy
 * `select`, `insert`, `update`, `delete`, `count`), registered by the plugins that handle them.
 * The reference engine lets any role send those on `/v1/query` and `/v2/query` (their handlers
 * apply the role's permissions; everything else there is admin-only), so the service lets a
 * request made only of them through without an admin session, runs it outside the metadata
 * write lock, and never rebuilds or persists anything for it.
 */
export function dataOperationTypes(container: AwilixContainer): Set<string> {
  if (!container.hasRegistration(DATA_OPERATIONS_KEY)) container.register(DATA_OPERATIONS_KEY, asValue(new Set<string>()));
  return container.resolve<Set<string>>(DATA_OPERATIONS_KEY);
}
