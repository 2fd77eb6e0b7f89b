/**
 * The legacy `insert`: `{table, objects, on_conflict, returning}` → a flat insert of the mutation
 * IR. `on_conflict` is `{action: ignore|update, constraint | constraint_on}`; `update` sets every
 * column the objects give (the reference's upsert), under the role's update permission.
 */
import {
  type ArgsObject,
  type ColumnValueIR,
  EngineError,
  type InsertRowIR,
  isPlainObject,
  jsonTypeName,
  type MutationIR,
  type OnConflictIR,
  parseFailed,
  quotedTable,
  requireKey,
  requireTable,
  type ResolvedTable,
} from '../../../core/sdk/index.js';
import { DECODE, keyPath, optionalStringList, stringList } from './parse.js';
import { mutationReturn } from './returning.js';
import { accessOf, ARGS, checkColumn, requireAccess, requireColumn, requireTable as tableOf, type Access, type DmlContext } from './target.js';
import { columnValue } from './values.js';

interface OnConflictSpec {
  constraintOn: string[] | null;
  constraint: string | null;
  action: 'ignore' | 'update';
}

function parseOnConflict(value: unknown, path: string): OnConflictSpec {
  if (!isPlainObject(value)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(value)}`, path);
  const action = requireKey(value, 'action', path);
  if (action !== 'ignore' && action !== 'update') throw parseFailed("Expecting 'ignore' or 'update'", `${path}.action`);
  const on = value['constraint_on'];
  let constraintOn: string[] | null = null;
  if (typeof on === 'string') constraintOn = [on];
  else if (Array.isArray(on)) constraintOn = stringList(on, `${path}.constraint_on`);
  else if (on !== undefined && on !== null) throw parseFailed('Expecting String or Array', `${path}.constraint_on`);
  const c = value['constraint'];
  if (c !== undefined && c !== null && typeof c !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(c)}`, `${path}.constraint`);
  return { constraintOn, constraint: typeof c === 'string' ? c : null, action };
}

const uniqueConstraints = (t: ResolvedTable) => [...(t.catalog.primaryKey ? [t.catalog.primaryKey] : []), ...t.catalog.uniqueConstraints];

function conflictTarget(t: ResolvedTable, spec: OnConflictSpec, path: string): string | null {
  if (spec.constraintOn && spec.constraint !== null) {
    throw new EngineError('unexpected-payload', "'constraint' and 'constraint_on' cannot be set at a time", { path });
  }
  if (spec.constraint !== null) {
    if (!uniqueConstraints(t).some((c) => c.name === spec.constraint)) {
      const message = `constraint "${spec.constraint}" for table ${quotedTable(t.table)} does not exist`;
      throw new EngineError('unexpected', message, { status: 400, path: `${path}.constraint` });
    }
    return spec.constraint;
  }
  if (spec.constraintOn) {
    const cols = spec.constraintOn;
    cols.forEach((c, i) => requireColumn(t, c, '', `${path}.constraint_on[${i}]`));
    // ON CONFLICT ON CONSTRAINT needs the constraint those columns make up.
    const match = uniqueConstraints(t).find((k) => k.columns.length === cols.length && cols.every((c) => k.columns.includes(c)));
    if (!match) throw new EngineError('constraint-error', 'there is no unique or exclusion constraint on target column(s)', { path });
    return match.name;
  }
  if (spec.action === 'update') {
    throw new EngineError('unexpected-payload', "Expecting 'constraint' or 'constraint_on' when the 'action' is 'update'", { path });
  }
  return null;
}

function onConflictIR(dc: DmlContext, t: ResolvedTable, spec: OnConflictSpec, inputColumns: string[]): OnConflictIR {
  const path = `${ARGS}.on_conflict`;
  const upd = accessOf(dc, t, 'update');
  if (!upd) {
    throw new EngineError('permission-denied', `upsert is not allowed for role "${dc.role}" since update permissions are not defined`, { path });
  }
  const constraint = conflictTarget(t, spec, path);
  if (spec.action === 'ignore') return { constraint, updateColumns: [], presets: [], where: null };
  for (const c of inputColumns) {
    if (!upd.columns.has(c)) throw new EngineError('validation-failed', `column "${c}" is not updatable`, { path });
  }
  return { constraint, updateColumns: inputColumns, presets: upd.presets, where: upd.filter };
}

function rowIR(dc: DmlContext, ins: Access, object: unknown, path: string): InsertRowIR {
  if (!isPlainObject(object)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(object)}`, path);
  const t = ins.table;
  const preset = new Set(ins.presets.map((p) => p.column));
  const columns: ColumnValueIR[] = Object.entries(object).map(([name, value]) => {
    requireColumn(t, name, "relationships can't be inserted", path);
    if (preset.has(name)) throw new EngineError('not-supported', `column "${name}" is not insertable for role "${dc.role}"`, { path });
    // The reference leaves the insert permission's column list unchecked here; GraphQL enforces it, so do we.
    checkColumn(dc, ins, 'insert', name, path);
    return { column: name, value: columnValue(dc.source, t, name, value, keyPath(path, name)) };
  });
  return { columns: [...columns, ...ins.presets], relationships: [] };
}

export function insertIR(dc: DmlContext, args: ArgsObject): MutationIR {
  const tableName = requireTable(args, 'table', DECODE);
  const objects = requireKey(args, 'objects', DECODE);
  const returning = optionalStringList(args, 'returning');
  const conflict = args['on_conflict'] === undefined || args['on_conflict'] === null ? null : parseOnConflict(args['on_conflict'], `${DECODE}.on_conflict`);
  const objectsPath = `${ARGS}.objects`;
  if (!Array.isArray(objects)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(objects)}`, objectsPath);
  if (objects.length === 0) throw new EngineError('unexpected-payload', 'objects should not be empty', { path: objectsPath });

  const t = tableOf(dc, tableName, ARGS);
  if (!t.catalog.insertable) throw new EngineError('not-supported', `view ${quotedTable(t.table)} is not insertable`, { path: ARGS });
  const ins = requireAccess(dc, t, 'insert', ARGS);
  const why = '; "returning" can only be used if the role has "select" permission on the table';
  const select = returning ? requireAccess(dc, t, 'select', ARGS, why) : null;
  const ret = mutationReturn(dc, select, t, returning);
  const rows = objects.map((o, i) => rowIR(dc, ins, o, `${objectsPath}[${i}]`));
  const given = [...new Set(objects.flatMap((o) => Object.keys(o as ArgsObject)))];
  const onConflict = conflict ? onConflictIR(dc, t, conflict, given) : null;
  return {
    kind: 'insert',
    source: dc.source.name,
    insert: {
      table: ins.ref,
      rows,
      check: ins.check,
      updateCheck: onConflict && onConflict.updateColumns.length > 0 ? (accessOf(dc, t, 'update')?.check ?? null) : null,
      onConflict,
    },
    returning: ret,
    errorPath: ARGS,
  };
}
