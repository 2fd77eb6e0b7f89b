/**
 * The columns a permission's boolean expression reads, table by table: keys are columns of the
 * table the expression is evaluated against, relationships and `_exists` move to another table,
 * `_ceq`-style operators name a column of the current (or, with `["$", c]`, the root) table. Used
 * to find what a dropped, retyped or renamed column breaks, and to rename it in place.
 *
 * "On type" follows the reference engine: a column compared with a literal depends on its type
 * (changing the type would change the comparison); one compared only with session variables, or
 * only tested for null, does not.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { isPlainObject, sameTable, toQualifiedTable } from './args.js';
import { relationshipsOf, relationshipTarget } from './bool-exp-walk.js';
import type { QualifiedTable, SourceMetadata } from './types.js';

export interface FieldUse {
  table: QualifiedTable;
  /** A column name, or the name of a computed field when the key is one. */
  field: string;
  onType: boolean;
}

export interface ColumnWalk {
  source: SourceMetadata;
  catalog: DatabaseCatalog | undefined;
  /** Sees every field reference; returning a string renames it in the returned expression. */
  visit(use: FieldUse): string | void;
}

const COLUMN_OPS = new Set(['_ceq', '_cneq', '_cne', '_cgt', '_clt', '_cgte', '_clte']);
const NO_VALUE_OPS = new Set(['_is_null']);
const isSessionVariable = (v: unknown): boolean => typeof v === 'string' && v.toLowerCase().startsWith('x-svc-');

/** Legacy filters spell operators with `$` (`$eq`). */
const canonicalOp = (key: string): string => (key.startsWith('$') ? `_${key.slice(1)}` : key);

/** Walks `exp`, evaluated against `table`; returns it with the renames `walk.visit` asked for. */
export function walkBoolExpColumns(exp: unknown, table: QualifiedTable, walk: ColumnWalk, root: QualifiedTable = table): unknown {
  if (Array.isArray(exp)) return exp.map((e) => walkBoolExpColumns(e, table, walk, root));
  if (!isPlainObject(exp)) return exp;
  const meta = walk.source.tables.find((t) => sameTable(t.table, table));
  const rels = new Map((meta ? relationshipsOf(meta) : []).map(([kind, r]) => [r.name, { kind, r }] as const));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(exp)) {
    // Permissions also accept the legacy `$and`, `$or`, `$not`, `$exists` spellings.
    const word = canonicalOp(key);
    if (word === '_and' || word === '_or' || word === '_not') {
      out[key] = walkBoolExpColumns(value, table, walk, root);
    } else if (word === '_exists') {
      out[key] = walkExists(value, walk, root);
    } else if (rels.has(key) || (key.endsWith('_aggregate') && rels.get(key.slice(0, -'_aggregate'.length))?.kind === 'array')) {
      const aggregate = !rels.has(key);
      const { kind, r } = rels.get(aggregate ? key.slice(0, -'_aggregate'.length) : key)!;
      const target = relationshipTarget(table, kind, r, walk.catalog);
      if (!target) out[key] = value;
      else out[key] = aggregate ? walkAggregate(value, target, walk, root) : walkBoolExpColumns(value, target, walk, root);
    } else {
      const renamed = walk.visit({ table, field: key, onType: comparesWithLiteral(value) });
      out[typeof renamed === 'string' ? renamed : key] = walkOperators(value, table, walk, root);
    }
  }
  return out;
}

function walkExists(value: unknown, walk: ColumnWalk, root: QualifiedTable): unknown {
  if (!isPlainObject(value)) return value;
  const target = toQualifiedTable(value._table);
  if (!target || value._where === undefined) return value;
  return { ...value, _where: walkBoolExpColumns(value._where, target, walk, root) };
}

/** `{count: {arguments, filter, predicate}}`: arguments and filter belong to the target table. */
function walkAggregate(value: unknown, target: QualifiedTable, walk: ColumnWalk, root: QualifiedTable): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [fn, body] of Object.entries(value)) {
    if (!isPlainObject(body)) {
      out[fn] = body;
      continue;
    }
    const next: Record<string, unknown> = { ...body };
    if (body.filter !== undefined) next.filter = walkBoolExpColumns(body.filter, target, walk, root);
    if (Array.isArray(body.arguments)) next.arguments = body.arguments.map((a) => renameField(a, target, walk, false));
    else if (typeof body.arguments === 'string') next.arguments = renameField(body.arguments, target, walk, false);
    out[fn] = next;
  }
  return out;
}

/** The operators object of a column (a bare value is the `_eq` shorthand and names no column). */
function walkOperators(value: unknown, table: QualifiedTable, walk: ColumnWalk, root: QualifiedTable): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, operand] of Object.entries(value)) {
    out[key] = COLUMN_OPS.has(canonicalOp(key)) ? walkColumnOperand(operand, table, walk, root) : operand;
  }
  return out;
}

/** `"other"` (current table) or `["$", "other"]` (root table): the named column's type matters. */
function walkColumnOperand(operand: unknown, table: QualifiedTable, walk: ColumnWalk, root: QualifiedTable): unknown {
  if (typeof operand === 'string') return renameField(operand, table, walk, true);
  if (Array.isArray(operand) && operand.length > 0 && typeof operand[operand.length - 1] === 'string') {
    const atRoot = operand[0] === '$';
    const last = operand.length - 1;
    return operand.map((v, i) => (i === last ? renameField(v, atRoot ? root : table, walk, true) : v));
  }
  return operand;
}

function renameField(field: unknown, table: QualifiedTable, walk: ColumnWalk, onType: boolean): unknown {
  if (typeof field !== 'string') return field;
  const renamed = walk.visit({ table, field, onType });
  return typeof renamed === 'string' ? renamed : field;
}

/** Whether the column's operators hold a literal, not only session variables or null tests. */
function comparesWithLiteral(value: unknown): boolean {
  if (!isPlainObject(value)) return !isSessionVariable(value);
  return Object.entries(value).some(([key, operand]) => {
    const op = canonicalOp(key);
    if (NO_VALUE_OPS.has(op) || COLUMN_OPS.has(op)) return false;
    if (op === '_cast' && isPlainObject(operand)) return Object.values(operand).some(comparesWithLiteral);
    return !isSessionVariable(operand);
  });
}
