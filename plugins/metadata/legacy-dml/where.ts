/**
 * A legacy `where` (a boolean expression over database names, the permission syntax with `$eq`
 * and `_eq` spellings) → IR, the way the reference's `convBoolExp` treats it: names, operators
 * and values are checked first (the permission validator gives the reference's messages), then
 * every column read must be selectable by the role, and a relationship (or `_exists`) may only
 * be crossed into a table the role may select from, whose row filter is AND-ed in there.
 */
import {
  and,
  andMaybe,
  type BoolExpIR,
  buildPermissionFilter,
  EngineError,
  isPlainObject,
  not,
  or,
  parseTableName,
  PermissionValidationError,
  validateBoolExp,
} from '../../../core/sdk/index.js';
import { checkColumn, relationshipAccess, requireAccess, requireTable, type Access, type DmlContext, withHiddenCells } from './target.js';

const COLUMN_OPERATORS = new Set(['ceq', 'cne', 'cneq', 'cgt', 'clt', 'cgte', 'clte']);

/** `where` of a table the role reads through `access`; `path` is where it sits (`$.args.where`). */
export function buildLegacyWhere(dc: DmlContext, access: Access, where: unknown, path: string): BoolExpIR {
  try {
    validateBoolExp(where, access.table, dc.source.tables, path);
  } catch (e) {
    if (e instanceof PermissionValidationError) throw new EngineError(e.code, e.message, { path: e.path });
    throw e;
  }
  // The reference checks permissions on the whole parsed expression, so it reports at `where` itself.
  return walk(dc, access, access, where as Record<string, unknown>, path);
}

function walk(dc: DmlContext, current: Access, root: Access, exp: Record<string, unknown>, path: string): BoolExpIR {
  const items: BoolExpIR[] = [];
  for (const [rawKey, value] of Object.entries(exp)) {
    const key = rawKey.startsWith('$') ? `_${rawKey.slice(1)}` : rawKey;
    if (key === '_and' || key === '_or') {
      const parts = (value as unknown[]).map((v) => walk(dc, current, root, v as Record<string, unknown>, path));
      items.push(key === '_and' ? and(parts) : or(parts));
    } else if (key === '_not') {
      items.push(not(walk(dc, current, root, value as Record<string, unknown>, path)));
    } else if (key === '_exists') {
      const spec = value as { _table: unknown; _where: Record<string, unknown> };
      const target = requireTable(dc, parseTableName(spec._table, path), path);
      const access = requireAccess(dc, target, 'select', path);
      const inner = walk(dc, access, root, spec._where, path);
      items.push({ kind: 'exists', target: access.ref, where: andMaybe(access.filter, inner) ?? inner });
    } else if (current.table.columnsByName.has(rawKey)) {
      checkColumn(dc, current, 'select', rawKey, path);
      checkOperands(dc, current, root, value, path);
      items.push(withHiddenCells(current, buildPermissionFilter(current.table, { [rawKey]: value }, dc.source.tables, path)));
    } else {
      const rel = current.table.relationships.get(rawKey)!;
      const access = relationshipAccess(dc, current.table, rawKey, path);
      const inner = walk(dc, access, root, value as Record<string, unknown>, path);
      items.push({ kind: 'relationship', target: access.ref, mapping: rel.mapping, where: andMaybe(access.filter, inner) ?? inner });
    }
  }
  return and(items);
}

/** `_ceq`-style operators read another column, which must be selectable too. */
function checkOperands(dc: DmlContext, current: Access, root: Access, value: unknown, path: string): void {
  if (!isPlainObject(value)) return;
  for (const [op, operand] of Object.entries(value)) {
    if (!COLUMN_OPERATORS.has(op.slice(1))) continue;
    const rootRef = Array.isArray(operand) && operand.length === 2 && operand[0] === '$';
    const name = Array.isArray(operand) ? operand[operand.length - 1] : operand;
    if (typeof name === 'string') checkColumn(dc, rootRef ? root : current, 'select', name, path);
  }
}
