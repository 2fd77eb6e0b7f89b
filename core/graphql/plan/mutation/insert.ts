/**
 * `objects`/`object` and `on_conflict` → `InsertIR`, recursively through relationship inserts.
 *
 * Each row gets the client's values plus the role's insert presets; a relationship insert gets
 * the target table's own check, presets and upsert rules. As in the reference engine, a column
 * whose value a relationship determines cannot also be given: the foreign key of an object
 * relationship inserted first (`cannot insert object relationship ...`), and the mapped columns
 * of rows inserted through an array relationship (`cannot insert ... columns as their values are
 * already being determined by parent insert`).
 */
import type { ColumnValueIR, InsertIR, InsertRowIR, OnConflictIR, RelationshipInsertIR } from '../../ir-mutation.js';
import type { PlanContext } from '../../schema-draft.js';
import { andMaybe } from '../bool.js';
import { buildWhere } from '../bool-exp.js';
import { leafValue, listItems, objectEntries, present, toJson, validationError, type Input } from '../input.js';
import type { ColumnView } from '../view.js';
import type { InsertRelationshipView, MutationView } from './view.js';

export const PLACEHOLDER_COLUMN = '_PLACEHOLDER';

const quoteList = (names: string[]): string => names.map((n) => `"${n}"`).join(', ');

export function columnValue(c: ColumnView, input: Input, ctx: PlanContext, path: string): ColumnValueIR {
  const spec = {
    dbType: c.column.type,
    graphqlType: c.graphqlType,
    nullable: true,
    keepsNumericText: c.info.keepsNumericText,
    ...(c.enumValues ? { enumValues: c.enumValues } : {}),
  };
  return { column: c.column.name, value: leafValue(input, ctx, spec, path) };
}

/** Where an insert's arguments are, for messages: its rows and its `on_conflict`. */
export interface InsertPaths {
  rows: string;
  onConflict: string;
}

/**
 * The rows and upsert rule of one insert into `v`. `determined` names the columns the parent
 * insert sets (array relationships), which the rows must not give.
 */
export function buildInsert(
  v: MutationView,
  objects: Input[],
  onConflict: Input | undefined,
  ctx: PlanContext,
  paths: InsertPaths,
  determined: readonly string[] = [],
): InsertIR {
  const path = paths.rows;
  const conflict = onConflict ? buildOnConflict(v, onConflict, ctx, paths.onConflict) : null;
  return {
    table: v.ref,
    rows: objects.map((o) => buildRow(v, o, ctx, path, determined)),
    check: v.insertCheck(),
    updateCheck: conflict && conflict.updateColumns.length > 0 ? v.updateCheck() : null,
    onConflict: conflict,
  };
}

function buildRow(v: MutationView, input: Input, ctx: PlanContext, path: string, determined: readonly string[]): InsertRowIR {
  const columns: ColumnValueIR[] = [];
  const relationships: RelationshipInsertIR[] = [];
  const typeName = v.names.insertInput;
  for (const [key, value] of objectEntries(input, ctx, path, typeName)) {
    const at = `${path}.${key}`;
    const column = v.insert?.byField.get(key);
    if (column) {
      columns.push(columnValue(column, value, ctx, at));
      continue;
    }
    const rel = v.insertRelationships.get(key);
    if (!rel) throw validationError(`field '${key}' not found in type: '${typeName}'`, at);
    const given = present(value, ctx);
    const built = given ? buildRelationshipInsert(rel, given, ctx, at) : null;
    if (built) relationships.push(built);
  }

  const given = columns.map((c) => c.column);
  const clash = given.filter((c) => determined.includes(c));
  if (clash.length > 0) {
    throw validationError(
      `cannot insert ${quoteList(clash)} columns as their values are already being determined by parent insert`,
      path,
    );
  }
  for (const r of relationships) {
    if (r.insertionOrder !== 'before_parent') continue;
    const taken = r.mapping.map(([own]) => own).filter((c) => given.includes(c) || determined.includes(c));
    if (taken.length > 0) {
      throw validationError(
        `cannot insert object relationship "${r.name}" as ${quoteList(taken)} column values are already determined`,
        `${path}.${r.name}`,
      );
    }
  }
  // Presets last: the permission's value wins over nothing the client could have sent (preset
  // columns are not in the input type), and a parent's value wins over a preset (compiler).
  return { columns: [...columns, ...v.insertPresets()], relationships };
}

function buildRelationshipInsert(rel: InsertRelationshipView, input: Input, ctx: PlanContext, path: string): RelationshipInsertIR | null {
  const target = rel.target;
  const typeName = rel.rel.kind === 'object' ? target.names.objRelInsertInput : target.names.arrRelInsertInput;
  let data: Input | undefined;
  let onConflict: Input | undefined;
  for (const [key, value] of objectEntries(input, ctx, path, typeName)) {
    if (key === 'data') data = value;
    else if (key === target.naming.field('on_conflict')) onConflict = value;
    else throw validationError(`field '${key}' not found in type: '${typeName}'`, `${path}.${key}`);
  }
  const dataPath = `${path}.data`;
  const given = data ? present(data, ctx) : null;
  if (!given) throw validationError(`missing required field 'data'`, path);
  const objects = rel.rel.kind === 'object' ? [given] : listItems(given, ctx);
  // An empty array relationship insert is no insert at all, as in the reference engine.
  if (objects.length === 0) return null;
  const after = rel.rel.insertionOrder === 'after_parent';
  const determined = after ? rel.rel.mapping.map(([, theirs]) => theirs) : [];
  return {
    name: rel.rel.name,
    mapping: rel.rel.mapping,
    insertionOrder: rel.rel.insertionOrder,
    insert: buildInsert(
      target,
      objects,
      onConflict,
      ctx,
      { rows: dataPath, onConflict: `${path}.${target.naming.field('on_conflict')}` },
      determined,
    ),
  };
}

function buildOnConflict(v: MutationView, input: Input, ctx: PlanContext, path: string): OnConflictIR | null {
  const given = present(input, ctx);
  if (!given) return null;
  let constraint: string | undefined;
  let updateColumns: string[] = [];
  let userWhere = null;
  for (const [key, value] of objectEntries(given, ctx, path, v.names.onConflict)) {
    const at = `${path}.${key}`;
    if (key === 'constraint') {
      const name = toJson(value, ctx);
      constraint = v.constraints.find((c) => c.name === name)?.name;
      if (!constraint) throw validationError(`unexpected value ${JSON.stringify(name)} for enum: '${v.names.constraint}'`, at);
    } else if (key === 'update_columns') {
      const list = present(value, ctx);
      updateColumns = list ? listItems(list, ctx).map((item) => updateColumnOf(v, toJson(item, ctx), at)) : [];
    } else if (key === 'where') {
      const w = present(value, ctx);
      userWhere = w ? buildWhere(v.filter, w, ctx, at) : null;
    } else {
      throw validationError(`field '${key}' not found in type: '${v.names.onConflict}'`, at);
    }
  }
  if (!constraint) throw validationError(`missing required field 'constraint'`, path);
  // DO NOTHING ignores `where`, as the reference engine does.
  if (updateColumns.length === 0) return { constraint, updateColumns, presets: [], where: null };
  return { constraint, updateColumns, presets: v.updatePresets(), where: andMaybe(v.updateFilter(), userWhere) };
}

function updateColumnOf(v: MutationView, value: unknown, path: string): string {
  if (value === PLACEHOLDER_COLUMN) throw validationError('erroneous column name', path);
  const column = typeof value === 'string' ? v.update?.byField.get(value) : undefined;
  if (!column) throw validationError(`unexpected value ${JSON.stringify(value)} for enum: '${v.names.updateColumn}'`, path);
  return column.column.name;
}
