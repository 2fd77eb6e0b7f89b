/**
 * Where the metadata document lives. The engine resolves `metadataStore` from the container; a
 * database-kind plugin provides it (db/postgres keeps it in its `svc_catalog` schema). The store
 * holds one document with a `resource_version` for optimistic concurrency, and must let several
 * engines start on it at once.
 */
import type { MetadataDocument } from './types.js';

export interface StoredMetadata {
  metadata: MetadataDocument;
  resourceVersion: number;
}

export interface MetadataStore {
  /**
   * Connects, creates or migrates the storage, and returns its catalog version. `initial` gives
   * the metadata of brand-new storage. Failures are BootErrors (E_DATABASE_UNAVAILABLE,
   * E_CATALOG_MIGRATION).
   */
  init(initial: () => MetadataDocument): Promise<number>;
  read(): Promise<StoredMetadata>;
  /** The stored resource version, cheaply (the schema sync poll asks often). */
  resourceVersion(): Promise<number>;
  /** Writes the metadata if the stored version is still `expected` (else 409 `conflict`); returns the new version. */
  write(metadata: MetadataDocument, expected: number): Promise<number>;
  /**
   * `write`, sent before the engine has decided to keep it: the document goes to the storage now,
   * unseen by anyone until `commit` (which answers as `write` does) or dropped by `abort`. A
   * metadata operation sends it and builds the new schema cache meanwhile, so the write's time in
   * the database overlaps the build instead of following it. Resolves once the document is on its
   * way (not stored yet). Absent, or undefined for a call: the engine writes with `write` after the
   * build.
   */
  beginWrite?(metadata: MetadataDocument, expected: number): Promise<PendingMetadataWrite> | undefined;
  close(): Promise<void>;
  /**
   * Whether the storage answers now, within `timeoutMs` (/healthz reports 500 ERROR otherwise).
   * Absent: /healthz assumes it does.
   */
  reachable?(timeoutMs: number): Promise<boolean>;
  /**
   * How to reach the database holding the metadata, once `init` has run, for plugins that keep
   * state shared by every engine beside it (rate-limit counters without Redis); undefined when
   * the storage is not a database others can connect to.
   */
  readonly connectionString?: string;
}

/** A write `beginWrite` sent: exactly one of `commit` and `abort` is called. */
export interface PendingMetadataWrite {
  /** Makes the write visible; returns the new version, or throws 409 `conflict` as `write` does. */
  commit(): Promise<number>;
  /** Drops the write; never throws; nothing after `commit`. */
  abort(): Promise<void>;
}

/** The container key the engine resolves the store by. */
export const METADATA_STORE_KEY = 'metadataStore';
