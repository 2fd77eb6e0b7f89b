/**
 * Which permissions use a column: for `run_sql` (dropping a column, changing its type) and other
 * schema changes that must report or cascade to them. A permission uses column `c` of table `t`
 * when it lists it by name (not through `*`: the reference fixed dropping columns a permission
 * does not name, hasura/graphql-engine#8415), presets it, or compares it in a filter or check,
 * directly, through relationships, through `_exists`, or as the right-hand side of `_ceq`-style
 * operators. Each use carries the reference's dependency reason:
 * `on_type` when a literal is compared with or assigned to it (a type change breaks that),
 * `session_variable` when only session variables are, `untyped` when it is only listed.
 */
import { PERMISSION_LIST_KEY } from './dependencies.js';
import type { DatabaseCatalog } from '../db/catalog.js';
import { isPlainObject, sameTable, toQualifiedTable } from './args.js';
import { relationshipsOf, relationshipTarget } from './bool-exp-walk.js';
import { PERMISSION_TYPES, reportDependent, type DependentObject, type PermissionType } from './dependencies.js';
import { isSessionVariable } from './permission-values.js';
import type { MetadataDocument, PermissionEntry, QualifiedTable, SourceMetadata } from './types.js';

export type DependencyReason = 'untyped' | 'on_type' | 'session_variable';

export interface PermissionColumnDependent {
  dependent: DependentObject;
  /** `permission author.user.select in source "default"`. */
  description: string;
  reasons: DependencyReason[];
}

const LIST_KEY = PERMISSION_LIST_KEY;

const EXPRESSION_KEYS: Readonly<Record<PermissionType, readonly string[]>> = {
  select: ['filter'],
  insert: ['check'],
  update: ['filter', 'check'],
  delete: ['filter'],
};

const COLUMN_OPERATORS = new Set(['ceq', 'cne', 'cneq', 'cgt', 'clt', 'cgte', 'clte']);
const opName = (key: string): string => (key.startsWith('_') || key.startsWith('$') ? key.slice(1) : key);

interface Target {
  table: QualifiedTable;
  column: string;
}

interface Walk {
  source: SourceMetadata;
  catalog: DatabaseCatalog | undefined;
  target: Target;
  root: QualifiedTable;
  found: Set<DependencyReason>;
}

const isTarget = (w: Walk, table: QualifiedTable, column: string): boolean => sameTable(table, w.target.table) && column === w.target.column;

/** Whether a comparison holds a literal (the reference's "static value"), not only session variables. */
function hasStaticValue(value: unknown): boolean {
  if (!isPlainObject(value)) return value !== null && !isSessionVariable(value);
  return Object.entries(value).some(([key, v]) => {
    const op = opName(key);
    if (op === 'is_null' || COLUMN_OPERATORS.has(op)) return false;
    if (op === 'cast') return isPlainObject(v) && Object.values(v).some(hasStaticValue);
    if (Array.isArray(v)) return v.length > 0;
    return v !== null && !isSessionVariable(v);
  });
}

/** `_ceq` operands naming the target column (current table, or the permission's table with `$`). */
function columnOperands(w: Walk, current: QualifiedTable, value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (opName(key) === 'cast' && isPlainObject(v)) Object.values(v).forEach((inner) => columnOperands(w, current, inner));
    if (!COLUMN_OPERATORS.has(opName(key))) continue;
    const root = Array.isArray(v) && v.length === 2 && v[0] === '$';
    const name = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof name === 'string' && isTarget(w, root ? w.root : current, name)) w.found.add('on_type');
  }
}

function walkExp(w: Walk, exp: unknown, current: QualifiedTable): void {
  if (!isPlainObject(exp)) return;
  const meta = w.source.tables.find((t) => sameTable(t.table, current));
  const rels = new Map((meta ? relationshipsOf(meta) : []).map(([kind, r]) => [r.name, { kind, r }] as const));
  for (const [key, value] of Object.entries(exp)) {
    // `_and`/`$and`...: a column may be named `and`, never `_and` (that is the operator).
    const logical = key.startsWith('_') || key.startsWith('$') ? key.slice(1) : null;
    if ((logical === 'and' || logical === 'or') && Array.isArray(value)) value.forEach((item) => walkExp(w, item, current));
    else if (logical === 'not') walkExp(w, value, current);
    else if (logical === 'exists' && isPlainObject(value)) {
      const to = toQualifiedTable(value._table);
      if (to) walkExp(w, value._where, to);
    } else if (rels.has(key)) {
      const { kind, r } = rels.get(key)!;
      const to = relationshipTarget(current, kind, r, w.catalog);
      if (to) walkExp(w, value, to);
    } else {
      if (isTarget(w, current, key)) w.found.add(hasStaticValue(value) ? 'on_type' : 'session_variable');
      columnOperands(w, current, value);
    }
  }
}

function usesOf(w: Walk, type: PermissionType, permission: Record<string, unknown>): void {
  if (sameTable(w.root, w.target.table)) {
    // `*` (or an insert permission without `columns`) follows the table's columns: not a use.
    const columns = permission.columns;
    if (Array.isArray(columns) && columns.includes(w.target.column)) w.found.add('untyped');
    const set = permission.set;
    if (isPlainObject(set) && w.target.column in set) {
      w.found.add(isSessionVariable(set[w.target.column]) ? 'session_variable' : 'on_type');
    }
  }
  for (const key of EXPRESSION_KEYS[type]) walkExp(w, permission[key], w.root);
}

/** The permissions of `sourceName` that use `column` of `table`, in metadata order. */
export function permissionColumnDependents(
  draft: MetadataDocument,
  sourceName: string,
  table: QualifiedTable,
  column: string,
  catalog?: DatabaseCatalog,
): PermissionColumnDependent[] {
  const source = draft.sources.find((s) => s.name === sourceName);
  if (!source) return [];
  const out: PermissionColumnDependent[] = [];
  for (const t of source.tables) {
    for (const type of PERMISSION_TYPES) {
      for (const entry of (t[LIST_KEY[type]] ?? []) as PermissionEntry<unknown>[]) {
        if (!isPlainObject(entry.permission)) continue;
        const w: Walk = { source, catalog, target: { table, column }, root: t.table, found: new Set() };
        usesOf(w, type, entry.permission);
        if (w.found.size === 0) continue;
        const dependent: DependentObject = { kind: 'permission', source: source.name, table: t.table, role: entry.role, permissionType: type };
        out.push({ dependent, description: reportDependent(dependent), reasons: [...w.found] });
      }
    }
  }
  return out;
}
