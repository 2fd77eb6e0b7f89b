/**
 * The legacy `count`: `{table, where, distinct}` → an aggregate of the query IR counting the
 * rows the role may select (its filter, not its row cap, as in the reference), or the distinct
 * values of the `distinct` columns (NULL counts as a value, as `SELECT DISTINCT` does).
 */
import { type ArgsObject, requireTable, type RootFieldIR } from '../../../core/sdk/index.js';
import { DECODE, optionalStringList } from './parse.js';
import { ARGS, checkColumn, requireAccess, requireColumn, requireTable as tableOf, type DmlContext } from './target.js';
import { buildLegacyWhere } from './where.js';

/** Keys of the aggregate's JSON answer, read back by the handler. */
export const COUNT_KEYS = { aggregate: 'aggregate', count: 'count' } as const;

export function countIR(dc: DmlContext, args: ArgsObject): RootFieldIR {
  const tableName = requireTable(args, 'table', DECODE);
  const distinct = optionalStringList(args, 'distinct');
  const where = args['where'] ?? null;
  const t = tableOf(dc, tableName, ARGS);
  const select = requireAccess(dc, t, 'select', ARGS, '; "count" is only allowed if the role has "select" permissions on the table');
  (distinct ?? []).forEach((c, i) => {
    const path = `${ARGS}.distinct[${i}]`;
    checkColumn(dc, select, 'select', c, path);
    requireColumn(t, c, `Relationships can't be used in "distinct".`, path);
  });
  return {
    kind: 'aggregate',
    source: dc.source.name,
    aggregate: {
      from: select.ref,
      where: where === null ? null : buildLegacyWhere(dc, select, where, `${ARGS}.where`),
      permissionFilter: select.filter,
      orderBy: [],
      // DISTINCT ON the columns, then count(*): the count of distinct value tuples, NULLs included.
      distinctOn: distinct ?? [],
      limit: null,
      offset: null,
      permissionLimit: null,
      fields: [{ kind: 'aggregate', alias: COUNT_KEYS.aggregate, ops: [{ kind: 'count', alias: COUNT_KEYS.count, columns: [], distinct: false }] }],
    },
  };
}
