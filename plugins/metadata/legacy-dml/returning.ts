/**
 * What a legacy insert, update or delete answers: `{affected_rows}`, plus `returning` (the
 * written rows' listed columns) when asked. `returning` reads through the role's select
 * permission: its columns only, and (as this engine's GraphQL mutations do) only rows its
 * filter lets the role see.
 */
import type { MutationReturnIR, ResolvedTable } from '../../../core/sdk/index.js';
import { ARGS, checkColumn, requireColumn, type Access, type DmlContext } from './target.js';

export function mutationReturn(dc: DmlContext, select: Access | null, table: ResolvedTable, returning: string[] | null): MutationReturnIR {
  if (returning === null || select === null) return { output: { kind: 'response', fields: [{ kind: 'affectedRows', alias: 'affected_rows' }] }, selectFilter: null };
  const path = `${ARGS}.returning`;
  const fields = returning.map((name) => {
    checkColumn(dc, select, 'select', name, path);
    requireColumn(table, name, `Relationships can't be used in "returning".`, path);
    return { kind: 'column' as const, alias: name, name, type: table.columnsByName.get(name)!.type };
  });
  return {
    output: {
      kind: 'response',
      fields: [
        { kind: 'affectedRows', alias: 'affected_rows' },
        { kind: 'returning', alias: 'returning', fields },
      ],
    },
    selectFilter: select.filter,
  };
}
