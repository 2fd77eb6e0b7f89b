/**
 * The read root fields of one table for one role: `<t>`, `<t>_by_pk` (when the table has a
 * primary key the role can select entirely) and `<t>_aggregate` (admin, or `allow_aggregations`).
 */
import { GraphQLList, GraphQLNonNull, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { lazyRootEntry, type RootFieldEntry } from '../schema-draft.js';
import type { TableView } from '../plan/view.js';
import { rootFieldPlanner } from '../plan/root.js';
import { aggregateType, columnDescription, columnValueType, objectType, selectArgs } from './objects.js';
import { quoted } from './inputs.js';
import type { TypeRegistry } from './registry.js';
import { streamRootField } from './stream-fields.js';

export type ReadRoot = 'query' | 'subscription';

/**
 * The read root fields of a table under `query_root` or `subscription_root`, narrowed by the
 * select permission's `query_root_fields` / `subscription_root_fields` (absent: all of them).
 * `streams`: whether `subscription_root` gets `<t>_stream`.
 */
export function tableRootFields(reg: TypeRegistry, view: TableView, root: ReadRoot = 'query', streams = false): Map<string, RootFieldEntry> {
  const allowed = root === 'query' ? view.access.queryRootFields : view.access.subscriptionRootFields;
  const out = new Map<string, RootFieldEntry>();
  for (const [name, kind, entry] of readRootFields(reg, view, root === 'subscription' && streams)) {
    if (allowed === null || allowed.includes(kind)) out.set(name, entry);
  }
  return out;
}

type RootFieldKindName = 'select' | 'select_by_pk' | 'select_aggregate' | 'select_stream';

function readRootFields(reg: TypeRegistry, view: TableView, stream: boolean): Array<[string, RootFieldKindName, RootFieldEntry]> {
  const out = new Map<string, RootFieldEntry>();
  const kinds = new Map<string, RootFieldKindName>();
  const names = view.naming.rootFields(view.table);
  const table = quoted(view);
  const row = () => objectType(reg, view);
  kinds.set(names.select, 'select');
  kinds.set(names.select_by_pk, 'select_by_pk');
  kinds.set(names.select_aggregate, 'select_aggregate');

  // Configs are made when a request reaches the field (lazy-schema.ts), with the types they name.
  out.set(
    names.select,
    lazyRootEntry(
      reg.rootConfig(view.source, view.table.key, names.select, () => ({
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(row()))),
        args: selectArgs(reg, view),
        description: `fetch data from the table: ${table}`,
      })),
      rootFieldPlanner(view, 'select'),
    ),
  );

  const pk = view.table.primaryKey ?? [];
  const pkColumns = pk.map((name) => view.columns.find((c) => c.column.name === name));
  if (pk.length > 0 && pkColumns.every((c) => c !== undefined)) {
    out.set(
      names.select_by_pk,
      lazyRootEntry(
        reg.rootConfig(view.source, view.table.key, names.select_by_pk, () => {
          const args: GraphQLFieldConfigArgumentMap = {};
          for (const c of pkColumns) {
            if (!c) continue;
            args[c.field] = { type: new GraphQLNonNull(columnValueType(reg, c)), description: columnDescription(c) };
          }
          return { type: row(), args, description: `fetch data from the table: ${table} using primary key columns` };
        }),
        rootFieldPlanner(view, 'select_by_pk'),
      ),
    );
  }

  if (view.access.allowAggregations) {
    out.set(
      names.select_aggregate,
      lazyRootEntry(
        reg.rootConfig(view.source, view.table.key, names.select_aggregate, () => ({
          type: new GraphQLNonNull(aggregateType(reg, view)),
          args: selectArgs(reg, view),
          description: `fetch aggregated fields from the table: ${table}`,
        })),
        rootFieldPlanner(view, 'select_aggregate'),
      ),
    );
  }
  const streamField = stream ? streamRootField(reg, view) : null;
  if (streamField) {
    out.set(streamField[0], streamField[1]);
    kinds.set(streamField[0], 'select_stream');
  }
  return [...out].map(([name, entry]) => [name, kinds.get(name)!, entry]);
}
