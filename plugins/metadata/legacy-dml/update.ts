/**
 * The legacy `update`: `{table, where, $set (or values), $inc, $mul, $default, returning}` → an
 * update of the mutation IR, under the role's update permission (its columns, filter, check and
 * presets) and its select permission, which `where` is read with.
 */
import {
  type ArgsObject,
  EngineError,
  type MutationIR,
  quotedTable,
  requireKey,
  requireTable,
  type UpdateOperator,
  type UpdateOpIR,
} from '../../../core/sdk/index.js';
import { keyPath, DECODE, optionalObject, optionalStringList } from './parse.js';
import { mutationReturn } from './returning.js';
import { ARGS, checkColumn, requireAccess, requireColumn, requireTable as tableOf, selectNeededFor, type Access, type DmlContext } from './target.js';
import { columnValue } from './values.js';
import { buildLegacyWhere } from './where.js';

/** The operators in the reference's order: a later one wins for a column named twice. */
const OPERATORS: ReadonlyArray<[string, UpdateOperator]> = [
  ['$set', '_set'],
  ['$inc', '_inc'],
  ['$mul', '_mul'],
  ['$default', '_default'],
];

function operatorEntries(args: ArgsObject, key: string): Array<[string, unknown]> | null {
  if (key === '$default') return optionalStringList(args, key)?.map((c): [string, unknown] => [c, null]) ?? null;
  // `values` is the older spelling of `$set`.
  const obj = key === '$set' && !('$set' in args) ? optionalObject(args, 'values') : optionalObject(args, key);
  return obj ? Object.entries(obj) : null;
}

function operationsIR(dc: DmlContext, upd: Access, args: ArgsObject): UpdateOpIR[] {
  const t = upd.table;
  const preset = new Set(upd.presets.map((p) => p.column));
  const byColumn = new Map<string, UpdateOpIR>();
  for (const p of upd.presets) byColumn.set(p.column, { column: p.column, type: t.columnsByName.get(p.column)!.type, op: '_set', value: p.value });
  for (const [key, op] of OPERATORS) {
    const path = keyPath(ARGS, key);
    for (const [column, value] of operatorEntries(args, key) ?? []) {
      if (preset.has(column)) {
        const message = `column "${column}" is not updatable for role "${dc.role}"; its value is predefined in permission`;
        throw new EngineError('not-supported', message, { path });
      }
      checkColumn(dc, upd, 'update', column, path);
      requireColumn(t, column, "relationships can't be updated", path);
      const v = op === '_default' ? { value: { kind: 'const' as const, value: null }, dbType: t.columnsByName.get(column)!.type } : columnValue(dc.source, t, column, value, path);
      byColumn.delete(column);
      byColumn.set(column, { column, type: t.columnsByName.get(column)!.type, op, value: v });
    }
  }
  return [...byColumn.values()];
}

export function updateIR(dc: DmlContext, args: ArgsObject): MutationIR {
  const tableName = requireTable(args, 'table', DECODE);
  const where = requireKey(args, 'where', DECODE);
  const returning = optionalStringList(args, 'returning');
  const t = tableOf(dc, tableName, `${ARGS}.table`);
  if (!t.catalog.updatable) throw new EngineError('not-supported', `view ${quotedTable(t.table)} is not updatable`, { path: ARGS });
  const upd = requireAccess(dc, t, 'update', ARGS);
  const select = requireAccess(dc, t, 'select', ARGS, selectNeededFor('update'));
  const ops = operationsIR(dc, upd, args);
  const ret = mutationReturn(dc, select, t, returning);
  if (ops.length === 0) throw new EngineError('unexpected-payload', 'atleast one of $set, $inc, $mul has to be present', { path: ARGS });
  return {
    kind: 'update',
    source: dc.source.name,
    update: { table: upd.ref, ops, where: buildLegacyWhere(dc, select, where, `${ARGS}.where`), permissionFilter: upd.filter, check: upd.check },
    returning: ret,
    errorPath: ARGS,
  };
}
