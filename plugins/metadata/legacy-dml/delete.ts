/**
 * The legacy `delete`: `{table, where, returning}` → a delete of the mutation IR, under the
 * role's delete permission (its filter) and its select permission, which `where` is read with.
 */
import {
  type ArgsObject,
  EngineError,
  type MutationIR,
  quotedTable,
  requireKey,
  requireTable,
} from '../../../core/sdk/index.js';
import { DECODE, optionalStringList } from './parse.js';
import { mutationReturn } from './returning.js';
import { ARGS, requireAccess, requireTable as tableOf, selectNeededFor, type DmlContext } from './target.js';
import { buildLegacyWhere } from './where.js';

export function deleteIR(dc: DmlContext, args: ArgsObject): MutationIR {
  const tableName = requireTable(args, 'table', DECODE);
  const where = requireKey(args, 'where', DECODE);
  const returning = optionalStringList(args, 'returning');
  const t = tableOf(dc, tableName, ARGS);
  if (!t.catalog.deletable) throw new EngineError('not-supported', `view ${quotedTable(t.table)} is not deletable`, { path: ARGS });
  const del = requireAccess(dc, t, 'delete', ARGS);
  const select = requireAccess(dc, t, 'select', ARGS, selectNeededFor('delete'));
  const ret = mutationReturn(dc, select, t, returning);
  return {
    kind: 'delete',
    source: dc.source.name,
    delete: { table: del.ref, where: buildLegacyWhere(dc, select, where, `${ARGS}.where`), permissionFilter: del.filter },
    returning: ret,
    errorPath: ARGS,
  };
}
