/**
 * The metadata a new catalog starts with (and clear_metadata returns to): the `default` source a
 * loaded database kind offers for the engine's own database (`DatabaseKind.defaultSource`), if
 * any. Kinds reference the database through the SVC_GRAPHQL_DATABASE_URL environment variable,
 * which the engine sets from `--database-url`, so that the stored metadata never holds a password.
 */
import type { DatabaseKind } from '../db/contract.js';
import type { ServerConfig } from '../config/types.js';
import type { MetadataDocument, SourceMetadata } from './types.js';

export const DATABASE_URL_ENV = 'SVC_GRAPHQL_DATABASE_URL';

export function initialMetadata(source: SourceMetadata | null): MetadataDocument {
  return { version: 3, sources: source ? [structuredClone(source)] : [] };
}

/** The first default source a loaded kind offers, in plugin order. */
export function defaultSourceOf(kinds: readonly DatabaseKind[], config: ServerConfig): SourceMetadata | null {
  for (const kind of kinds) {
    const source = kind.defaultSource?.(config);
    if (source) return source;
  }
  return null;
}
