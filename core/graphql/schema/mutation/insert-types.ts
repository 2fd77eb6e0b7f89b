/**
 * Insert input types: `<t>_insert_input` (the role's insertable columns and the relationships to
 * tables it may insert into), `<t>_obj_rel_insert_input`, `<t>_arr_rel_insert_input`, and the
 * upsert types `<t>_on_conflict`, `<t>_constraint`, `<t>_update_column` (with the reference's
 * `_PLACEHOLDER` value when the role may update no column, so `update_columns: []` still works).
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { qualifiedTableName } from '../../../metadata/types.js';
import type { MutationView } from '../../plan/mutation/view.js';
import { boolExpType } from '../inputs.js';
import { columnDescription, columnValueType } from '../objects.js';
import { sortedFields, type TypeRegistry } from '../registry.js';
import { PLACEHOLDER_COLUMN } from '../../plan/mutation/insert.js';

export const quotedTable = (v: MutationView): string => `"${qualifiedTableName(v.table.table)}"`;

export function insertInputType(reg: TypeRegistry, v: MutationView): GraphQLInputObjectType {
  const name = v.names.insertInput;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `input type for inserting data into table ${quotedTable(v)}`,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const c of v.insert?.columns ?? []) {
          fields[c.field] = { type: columnValueType(reg, c), description: columnDescription(c) };
        }
        for (const r of v.insertRelationships.values()) {
          fields[r.field] = {
            type: r.rel.kind === 'object' ? objRelInsertInputType(reg, r.target) : arrRelInsertInputType(reg, r.target),
          };
        }
        return sortedFields(fields);
      },
    }),
  );
}

export function objRelInsertInputType(reg: TypeRegistry, v: MutationView): GraphQLInputObjectType {
  const name = v.names.objRelInsertInput;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `input type for inserting object relation for remote table ${quotedTable(v)}`,
      fields: () => relInsertFields(reg, v, new GraphQLNonNull(insertInputType(reg, v))),
    }),
  );
}

export function arrRelInsertInputType(reg: TypeRegistry, v: MutationView): GraphQLInputObjectType {
  const name = v.names.arrRelInsertInput;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `input type for inserting array relation for remote table ${quotedTable(v)}`,
      fields: () =>
        relInsertFields(reg, v, new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(insertInputType(reg, v))))),
    }),
  );
}

function relInsertFields(
  reg: TypeRegistry,
  v: MutationView,
  data: GraphQLNonNull<GraphQLInputObjectType> | GraphQLNonNull<GraphQLList<GraphQLNonNull<GraphQLInputObjectType>>>,
): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = { data: { type: data } };
  const onConflict = onConflictType(reg, v);
  if (onConflict) fields[v.naming.field('on_conflict')] = { type: onConflict, description: 'upsert condition' };
  return sortedFields(fields);
}

/** `<t>_on_conflict`, or null when the table has no primary key or unique constraint. */
export function onConflictType(reg: TypeRegistry, v: MutationView): GraphQLInputObjectType | null {
  if (v.constraints.length === 0) return null;
  const name = v.names.onConflict;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `on_conflict condition type for table ${quotedTable(v)}`,
      fields: () => ({
        constraint: { type: new GraphQLNonNull(constraintEnum(reg, v)) },
        update_columns: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(updateColumnEnum(reg, v)))),
          defaultValue: [],
        },
        where: { type: boolExpType(reg, v.filter) },
      }),
    }),
  );
}

function constraintEnum(reg: TypeRegistry, v: MutationView): GraphQLEnumType {
  const name = v.names.constraint;
  return reg.local(name, () =>
    new GraphQLEnumType({
      name,
      description: `unique or primary key constraints on table ${quotedTable(v)}`,
      values: Object.fromEntries(
        v.constraints.map((c) => [
          c.name,
          { value: c.name, description: `unique or primary key constraint on columns ${c.columns.map((n) => `"${n}"`).join(', ')}` },
        ]),
      ),
    }),
  );
}

export function updateColumnEnum(reg: TypeRegistry, v: MutationView): GraphQLEnumType {
  const name = v.names.updateColumn;
  const columns = v.update?.columns ?? [];
  return reg.local(name, () =>
    columns.length === 0
      ? new GraphQLEnumType({
          name,
          description: `placeholder for update columns of table ${quotedTable(v)} (current role has no relevant permissions)`,
          values: { [PLACEHOLDER_COLUMN]: { value: PLACEHOLDER_COLUMN, description: 'placeholder (do not use)' } },
        })
      : new GraphQLEnumType({
          name,
          description: `update columns of table ${quotedTable(v)}`,
          values: Object.fromEntries(
            columns.map((c) => c.field).sort().map((f) => [f, { value: f, description: 'column name' }]),
          ),
        }),
  );
}
