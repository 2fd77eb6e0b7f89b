/**
 * Resolves each table's permissions once every serving table of the source is known (filters may
 * reach other tables through relationships and `_exists`). A permission that does not parse or no
 * longer fits the database (a dropped column, a changed type) is left out of the role's schema and
 * reported as an inconsistent object: `select_permission user in table author in source default`,
 * its reason prefixed with where it happened, as the reference engine words it.
 */
import { PERMISSION_LIST_KEY } from '../../metadata/dependencies.js';
import { EngineError } from '../../errors.js';
import { PERMISSION_TYPES, type PermissionType } from '../../metadata/dependencies.js';
import { parsePermission, type AnyPermission } from '../../metadata/permission-parse.js';
import { PermissionValidationError, validatePermission } from '../permissions/validate.js';
import type { InconsistentObject, PermissionEntry, QualifiedTable } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import type { ResolvedTable } from '../model.js';
import { inTableContext, quote, REASON_PREFIX } from './inconsistency.js';
import { freezeDocument } from '../../metadata/cow-draft.js';
import type { PermissionMemoPass, PermissionOutcome } from './permission-memo.js';

const LIST_KEY = PERMISSION_LIST_KEY;

export const permissionObjectType = (type: PermissionType): string => `${type}_permission`;

/** `select_permission user in table author in source default`. */
export const permissionObjectName = (source: string, table: QualifiedTable, type: PermissionType, role: string): string =>
  `${permissionObjectType(type)} ${role} in table ${qualifiedTableName(table)} in source ${source}`;

export function permissionInconsistency(
  source: string,
  table: QualifiedTable,
  type: PermissionType,
  entry: PermissionEntry<unknown>,
  message: string,
): InconsistentObject {
  return {
    type: permissionObjectType(type),
    name: permissionObjectName(source, table, type, entry.role),
    definition: {
      source,
      table: { schema: table.schema, name: table.name },
      role: entry.role,
      permission: entry.permission,
      comment: entry.comment ?? null,
    },
    reason: REASON_PREFIX + inTableContext(table, `in permission for role ${quote(entry.role)}: ${message}`),
  };
}

function checkPermissions(entries: readonly PermissionEntry<unknown>[], type: PermissionType, t: ResolvedTable, tables: ReadonlyMap<string, ResolvedTable>): PermissionOutcome[] {
  const outcomes: PermissionOutcome[] = [];
  for (const entry of entries) {
    try {
      const permission = parsePermission(type, entry.permission, '$.permission');
      validatePermission(type, entry.role, permission, t, tables);
      outcomes.push({ ok: true, permission });
    } catch (e) {
      outcomes.push({ ok: false, message: failureOf(e) });
    }
  }
  return outcomes;
}

/** As checkPermissions, the parsed permissions frozen: the memo shares them between snapshots. */
function checkShared(entries: readonly PermissionEntry<unknown>[], type: PermissionType, t: ResolvedTable, tables: ReadonlyMap<string, ResolvedTable>): PermissionOutcome[] {
  const outcomes = checkPermissions(entries, type, t, tables);
  for (const outcome of outcomes) if (outcome.ok) freezeDocument(outcome.permission);
  return outcomes;
}

function failureOf(e: unknown): string {
  if (e instanceof PermissionValidationError || e instanceof EngineError) return e.message;
  throw e;
}

/**
 * Checks every permission of `t` against the serving tables; keeps the valid ones (parsed, in
 * export form) in `t.permissions` and returns the others as inconsistent objects. With a memo,
 * an entry checked before against the same tables is not checked again (permission-memo.ts).
 */
export function resolveTablePermissions(
  source: string,
  t: ResolvedTable,
  tables: ReadonlyMap<string, ResolvedTable>,
  writable = true,
  memo?: PermissionMemoPass,
  /** Gets the keys of the tables the checks read (reuse.ts); only with a memo, which records them. */
  readKeys?: Set<string>,
): InconsistentObject[] {
  const out: InconsistentObject[] = [];
  for (const type of PERMISSION_TYPES) {
    const resolved = new Map<string, AnyPermission>();
    const entries = (t.metadata[LIST_KEY[type]] ?? []) as PermissionEntry<unknown>[];
    if (entries.length > 0) {
      // A read-only kind has no mutation to hold the permission to: kept, it would be ignored.
      const outcomes =
        !writable && type !== 'select'
          ? entries.map((): PermissionOutcome => ({ ok: false, message: `the source's database kind has no mutations, so ${type} permissions cannot be set` }))
          : memo
            ? memo.outcomes(entries, type, t, checkShared, readKeys)
            : checkPermissions(entries, type, t, tables);
      entries.forEach((entry, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) resolved.set(entry.role, outcome.permission);
        else out.push(permissionInconsistency(source, t.table, type, entry, outcome.message));
      });
    }
    (t.permissions as unknown as Record<PermissionType, Map<string, AnyPermission>>)[type] = resolved;
  }
  return out;
}
