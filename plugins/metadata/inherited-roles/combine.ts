/**
 * How an inherited role's table permissions derive from its parents', as the reference engine
 * derives them (`Hasura.RQL.Types.Roles.Internal`, note "Roles inheritance"):
 *
 * - select: the union. A row is visible if any parent sees it (the filters OR-ed); a column is
 *   selectable if any parent may select it, and its cell reads null on rows that only parents
 *   hiding the column let through (a per-column filter, compiled as CASE WHEN); the largest row
 *   limit; aggregations if any parent has them; root fields allowed by any parent.
 * - insert, update, delete: inherited only when every parent defining one defines the same
 *   (compared on what matters: column lists and `_and`/`_or` items as sets); otherwise the role
 *   and table are reported inconsistent.
 */
import type {
  BoolExpJson,
  DeletePermission,
  InsertPermission,
  ResolvedTableForInheritance,
  SelectPermission,
  UpdatePermission,
} from './types.js';

export type CheckedPermission = InsertPermission | UpdatePermission | DeletePermission;

/** A parent's select permission with the per-column filters it carries if it is inherited itself. */
export interface ParentSelect {
  permission: SelectPermission;
  cellFilters: ReadonlyMap<string, BoolExpJson> | undefined;
}

export interface CombinedSelect {
  permission: SelectPermission;
  /** Columns visible only on some rows: column → the rows' filter. */
  cellFilters: Map<string, BoolExpJson>;
}

const isTrue = (f: BoolExpJson): boolean => typeof f === 'object' && f !== null && Object.keys(f).length === 0;

/** JSON text with object keys sorted and `_and`/`_or`/column lists as sets: equal meaning, equal text. */
export function canonical(value: unknown, setKey?: string): string {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v));
    if (setKey !== undefined) items.sort();
    return `[${(setKey !== undefined ? [...new Set(items)] : items).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value as object).sort();
    const SET_KEYS = new Set(['_and', '_or', '$and', '$or', 'columns']);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], SET_KEYS.has(k) ? k : undefined)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function orOf(filters: BoolExpJson[]): BoolExpJson {
  const unique = [...new Map(filters.map((f) => [canonical(f), f] as const)).values()];
  if (unique.some(isTrue)) return {};
  return unique.length === 1 ? unique[0]! : { _or: unique };
}

const columnsOf = (p: SelectPermission, table: ResolvedTableForInheritance): string[] =>
  p.columns === '*' ? table.columns.map((c) => c.name) : p.columns;

export function combineSelect(parents: readonly ParentSelect[], table: ResolvedTableForInheritance): CombinedSelect {
  const rowFilters = parents.map((p) => p.permission.filter);
  const filter = orOf(rowFilters);
  const rowKey = canonical(filter);

  // For each column, the filters of the rows on which some parent shows it.
  const perColumn = new Map<string, BoolExpJson[]>();
  for (const p of parents) {
    for (const column of columnsOf(p.permission, table)) {
      const f = p.cellFilters?.get(column) ?? p.permission.filter;
      perColumn.set(column, [...(perColumn.get(column) ?? []), f]);
    }
  }
  const cellFilters = new Map<string, BoolExpJson>();
  const columns: string[] = [];
  for (const c of table.columns) {
    const filters = perColumn.get(c.name);
    if (!filters) continue;
    columns.push(c.name);
    const f = orOf(filters);
    if (canonical(f) !== rowKey) cellFilters.set(c.name, f);
  }

  // Scalar computed fields, like columns: visible on the rows of the parents listing them.
  const perComputed = new Map<string, BoolExpJson[]>();
  for (const p of parents) {
    for (const name of p.permission.computed_fields ?? []) {
      perComputed.set(name, [...(perComputed.get(name) ?? []), p.cellFilters?.get(name) ?? p.permission.filter]);
    }
  }
  for (const [name, filters] of perComputed) {
    const f = orOf(filters);
    if (canonical(f) !== rowKey) cellFilters.set(name, f);
  }

  const limits = parents.map((p) => p.permission.limit).filter((l): l is number => typeof l === 'number');
  const permission: SelectPermission = {
    columns,
    filter,
    ...(limits.length > 0 ? { limit: Math.max(...limits) } : {}),
    allow_aggregations: parents.some((p) => p.permission.allow_aggregations === true),
  };
  const computed = [...new Set(parents.flatMap((p) => p.permission.computed_fields ?? []))];
  if (computed.length > 0) permission.computed_fields = computed;
  for (const key of ['query_root_fields', 'subscription_root_fields'] as const) {
    // A parent allowing every root field (the key absent) allows them all for the union.
    if (parents.some((p) => p.permission[key] === undefined)) continue;
    permission[key] = [...new Set(parents.flatMap((p) => p.permission[key] ?? []))];
  }
  return { permission, cellFilters };
}

/** The parents' common permission, `undefined` when none defines one, or 'conflict'. */
export function combineChecked<P extends CheckedPermission>(parents: ReadonlyArray<P | undefined>): P | undefined | 'conflict' {
  let found: P | undefined;
  let key: string | undefined;
  for (const p of parents) {
    if (p === undefined) continue;
    const k = canonical(p);
    if (found === undefined) {
      found = p;
      key = k;
    } else if (k !== key) {
      return 'conflict';
    }
  }
  return found;
}
