/**
 * Inconsistent-object records in the reference engine's exact shapes, so that clients comparing
 * `get_inconsistent_metadata` output across engines see the same names and reasons.
 */
import type { InconsistentObject, QualifiedTable, RelationshipMetadata } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';

/** `"author"` or `"pub.author"`: how messages quote a table. */
export const quoteTable = (t: QualifiedTable): string => `"${qualifiedTableName(t)}"`;

export const quote = (s: string): string => `"${s}"`;

/** `table author in source default` (unquoted, as the reference prints object ids). */
export const tableObjectName = (source: string, t: QualifiedTable): string =>
  `table ${qualifiedTableName(t)} in source ${source}`;

export type RelationshipKind = 'object' | 'array';

export const relationshipObjectType = (kind: RelationshipKind): string => `${kind}_relation`;

/** `array_relation articles in table author in source default`. */
export const relationshipObjectName = (source: string, t: QualifiedTable, kind: RelationshipKind, name: string): string =>
  `${relationshipObjectType(kind)} ${name} in table ${qualifiedTableName(t)} in source ${source}`;

export const REASON_PREFIX = 'Inconsistent object: ';

export function tableInconsistency(source: string, table: QualifiedTable, message: string): InconsistentObject {
  return {
    type: 'table',
    name: tableObjectName(source, table),
    definition: { schema: table.schema, name: table.name },
    reason: REASON_PREFIX + message,
  };
}

export function relationshipInconsistency(
  source: string,
  table: QualifiedTable,
  kind: RelationshipKind,
  rel: RelationshipMetadata,
  message: string,
): InconsistentObject {
  return {
    type: relationshipObjectType(kind),
    name: relationshipObjectName(source, table, kind, rel.name),
    definition: { source, table: { schema: table.schema, name: table.name }, name: rel.name, using: rel.using, comment: rel.comment ?? null },
    reason: REASON_PREFIX + message,
  };
}

/** The reference prefixes errors raised while building a table's fields with where they happened. */
export const inTableContext = (t: QualifiedTable, message: string): string => `in table ${quoteTable(t)}: ${message}`;

export const inRelationshipContext = (t: QualifiedTable, rel: string, message: string): string =>
  inTableContext(t, `in relationship ${quote(rel)}: ${message}`);

/** A message that resolving a metadata object failed for; raised inside the resolver and caught per object. */
export class ResolveError extends Error {
  constructor(
    message: string,
    /** The reference's error code for the same failure, for operation handlers that rethrow it. */
    readonly code: 'not-exists' | 'already-exists' | 'constraint-violation' | 'constraint-error' | 'validation-failed' | 'not-found' | 'parse-failed' | 'not-supported',
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}
