/**
 * Where each kind of permission lives in a table's metadata entry, and how an operation names it.
 */
import { PERMISSION_LIST_KEY, type PermissionEntry, type PermissionType, type TableMetadata } from '../../../core/sdk/index.js';

const LIST_KEY = PERMISSION_LIST_KEY;

type Entries = PermissionEntry<unknown>[];

export function permissionList(meta: TableMetadata, type: PermissionType): Entries {
  return (meta[LIST_KEY[type]] ?? []) as Entries;
}

/** Replaces the list; an empty one is removed, as the export leaves empty lists out. */
export function setPermissionList(meta: TableMetadata, type: PermissionType, entries: Entries): void {
  const record = meta as unknown as Record<string, unknown>;
  if (entries.length > 0) record[LIST_KEY[type]] = entries;
  else delete record[LIST_KEY[type]];
}

export const findPermission = (meta: TableMetadata, type: PermissionType, role: string): PermissionEntry<unknown> | undefined =>
  permissionList(meta, type).find((p) => p.role === role);
