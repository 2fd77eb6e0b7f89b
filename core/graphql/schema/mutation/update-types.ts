/**
 * Update input types: one `<t>_<op>_input` per update operator that applies to a column the role
 * may update (`_set` any, `_inc` numeric, the jsonb operators jsonb), `<t>_pk_columns_input` and
 * `<t>_updates` (one entry of `update_<t>_many`), plus the `<t>_mutation_response` output type.
 */
import {
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import { qualifiedTableName } from '../../../metadata/types.js';
import type { ColumnView } from '../../plan/view.js';
import type { MutationView } from '../../plan/mutation/view.js';
import { UPDATE_OPERATORS, operatorColumns, type UpdateOperatorSpec } from '../../plan/mutation/operators.js';
import { boolExpType } from '../inputs.js';
import { columnDescription, columnValueType, objectType } from '../objects.js';
import { sortedFields, type TypeRegistry } from '../registry.js';
import { quotedTable } from './insert-types.js';

function valueType(reg: TypeRegistry, spec: UpdateOperatorSpec, c: ColumnView): GraphQLInputType {
  switch (spec.op) {
    case '_delete_key':
      return GraphQLString;
    case '_delete_elem':
      return GraphQLInt;
    case '_delete_at_path':
      return new GraphQLList(new GraphQLNonNull(GraphQLString));
    default:
      return columnValueType(reg, c);
  }
}

function operatorType(reg: TypeRegistry, v: MutationView, spec: UpdateOperatorSpec, columns: ColumnView[]): GraphQLInputObjectType {
  const name = spec.op === '_set' ? v.names.setInput : spec.op === '_inc' ? v.names.incInput : v.names.opInput(spec.op);
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: spec.typeDescription(quotedTable(v)),
      fields: () =>
        sortedFields(
          Object.fromEntries(
            columns.map((c) => [c.field, { type: valueType(reg, spec, c), description: columnDescription(c) }] as const),
          ) as GraphQLInputFieldConfigMap,
        ),
    }),
  );
}

/** `_set`, `_inc`, `_append`, ... as arguments (or `<t>_updates` fields), for the operators that apply. */
export function updateOperatorFields(reg: TypeRegistry, v: MutationView): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const spec of UPDATE_OPERATORS) {
    const columns = operatorColumns(spec, v.update?.columns ?? []);
    if (columns.length === 0) continue;
    const type = operatorType(reg, v, spec, columns);
    fields[v.naming.field(spec.op)] = { type, description: spec.argDescription ?? type.description ?? undefined };
  }
  return fields;
}

export function pkColumnsInputType(reg: TypeRegistry, v: MutationView, pk: ColumnView[]): GraphQLInputObjectType {
  const name = v.names.pkColumnsInput;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `primary key columns input for table: ${qualifiedTableName(v.table.table)}`,
      fields: () =>
        sortedFields(
          Object.fromEntries(
            pk.map((c) => [c.field, { type: new GraphQLNonNull(columnValueType(reg, c)), description: columnDescription(c) }] as const),
          ) as GraphQLInputFieldConfigMap,
        ),
    }),
  );
}

/** The primary key columns as arguments (`delete_<t>_by_pk(id: Int!)`). */
export function pkArgs(reg: TypeRegistry, pk: ColumnView[]): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const c of pk) args[c.field] = { type: new GraphQLNonNull(columnValueType(reg, c)), description: columnDescription(c) };
  return args;
}

export function updatesType(reg: TypeRegistry, v: MutationView): GraphQLInputObjectType {
  const name = v.names.updates;
  return reg.local(name, () =>
    new GraphQLInputObjectType({
      name,
      fields: () =>
        sortedFields({
          ...updateOperatorFields(reg, v),
          where: { type: new GraphQLNonNull(boolExpType(reg, v.filter)), description: 'filter the rows which have to be updated' },
        }),
    }),
  );
}

/** `<t>_mutation_response`: `affected_rows`, and `returning` only with a select permission. */
export function mutationResponseType(reg: TypeRegistry, v: MutationView): GraphQLObjectType {
  const name = v.names.mutationResponse;
  return reg.local(name, () =>
    new GraphQLObjectType({
      name,
      description: `response of any mutation on the table ${quotedTable(v)}`,
      fields: () => {
        const select = v.select;
        return {
          affected_rows: { type: new GraphQLNonNull(GraphQLInt), description: 'number of rows affected by the mutation' },
          ...(select
            ? {
                returning: {
                  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectType(reg, select)))),
                  description: 'data from the rows affected by the mutation',
                },
              }
            : {}),
        };
      },
    }),
  );
}
