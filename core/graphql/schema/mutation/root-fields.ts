/**
 * The mutation root fields of one table for one role, under the names the schema cache resolved
 * (custom root fields, source prefix/suffix, naming convention):
 *   insert_<t>, insert_<t>_one               insert permission (`_one` also needs select)
 *   update_<t>, update_<t>_many              update permission
 *   update_<t>_by_pk                         update + select on every primary key column
 *   delete_<t>, delete_<t>_by_pk             delete permission (`_by_pk` as above)
 */
import { GraphQLList, GraphQLNonNull, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { lazyRootEntry, RootFieldConfig, type RootFieldEntry, type RootFieldPlanner } from '../../schema-draft.js';
import type { MutationView } from '../../plan/mutation/view.js';
import { mutationFieldPlanner } from '../../plan/mutation/root.js';
import { boolExpType } from '../inputs.js';
import { objectType } from '../objects.js';
import type { TypeRegistry } from '../registry.js';
import { insertInputType, onConflictType, quotedTable } from './insert-types.js';
import { mutationResponseType, pkArgs, pkColumnsInputType, updateOperatorFields, updatesType } from './update-types.js';

function sortedArgs(args: GraphQLFieldConfigArgumentMap): GraphQLFieldConfigArgumentMap {
  const out: GraphQLFieldConfigArgumentMap = {};
  for (const k of Object.keys(args).sort()) out[k] = args[k]!;
  return out;
}

/** `updateMany` false: no `update_<t>_many` (the `hide_update_many_fields` experimental feature). */
export function tableMutationFields(reg: TypeRegistry, v: MutationView, updateMany = true): Map<string, RootFieldEntry> {
  const out = new Map<string, RootFieldEntry>();
  const names = v.table.rootFields;
  const table = quotedTable(v);
  const response = (): ReturnType<typeof mutationResponseType> => mutationResponseType(reg, v);
  // Configs are made when a request reaches the field (lazy-schema.ts), with the types they name.
  const entry = (make: () => GraphQLFieldConfig<unknown, unknown>, planner: RootFieldPlanner): RootFieldEntry =>
    lazyRootEntry(new RootFieldConfig(make), planner);
  const select = v.select;
  const row = select ? () => objectType(reg, select) : null;
  const pk = v.primaryKey;
  const onConflict = (): GraphQLFieldConfigArgumentMap => {
    const t = onConflictType(reg, v);
    return t ? { [v.naming.field('on_conflict')]: { type: t, description: 'upsert condition' } } : {};
  };

  // Nothing to give (no permitted column, no relationship): no insert field, as its input type
  // would have no fields.
  if (v.insert && (v.insert.columns.length > 0 || v.insertRelationships.size > 0)) {
    const input = () => new GraphQLNonNull(insertInputType(reg, v));
    const insert = () => ({
      type: response(),
      args: sortedArgs({
        objects: { type: new GraphQLNonNull(new GraphQLList(input())), description: 'the rows to be inserted' },
        ...onConflict(),
      }),
      description: `insert data into the table: ${table}`,
    });
    out.set(names.insert, entry(insert, mutationFieldPlanner(v, 'insert')));
    if (row) {
      const insertOne = () => ({
        type: row(),
        args: sortedArgs({ object: { type: input(), description: 'the row to be inserted' }, ...onConflict() }),
        description: `insert a single row into the table: ${table}`,
      });
      out.set(names.insert_one, entry(insertOne, mutationFieldPlanner(v, 'insert_one')));
    }
  }

  if (v.update) {
    const where = () => ({ type: new GraphQLNonNull(boolExpType(reg, v.filter)), description: 'filter the rows which have to be updated' });
    const update = () => ({
      type: response(),
      args: sortedArgs({ ...updateOperatorFields(reg, v), where: where() }),
      description: `update data of the table: ${table}`,
    });
    out.set(names.update, entry(update, mutationFieldPlanner(v, 'update')));
    if (row && pk) {
      const updateByPk = () => ({
        type: row(),
        args: sortedArgs({ ...updateOperatorFields(reg, v), pk_columns: { type: new GraphQLNonNull(pkColumnsInputType(reg, v, pk)) } }),
        description: `update single row of the table: ${table}`,
      });
      out.set(names.update_by_pk, entry(updateByPk, mutationFieldPlanner(v, 'update_by_pk')));
    }
    if (updateMany) {
      const updates = () => ({
        type: new GraphQLList(response()),
        args: {
          updates: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(updatesType(reg, v)))),
            description: 'updates to execute, in order',
          },
        },
        description: `update multiples rows of table: ${table}`,
      });
      out.set(names.update_many, entry(updates, mutationFieldPlanner(v, 'update_many')));
    }
  }

  if (v.canDelete) {
    const remove = () => ({
      type: response(),
      args: {
        where: { type: new GraphQLNonNull(boolExpType(reg, v.filter)), description: 'filter the rows which have to be deleted' },
      },
      description: `delete data from the table: ${table}`,
    });
    out.set(names.delete, entry(remove, mutationFieldPlanner(v, 'delete')));
    if (row && pk) {
      const removeByPk = () => ({ type: row(), args: sortedArgs(pkArgs(reg, pk)), description: `delete single row from the table: ${table}` });
      out.set(names.delete_by_pk, entry(removeByPk, mutationFieldPlanner(v, 'delete_by_pk')));
    }
  }
  return out;
}
