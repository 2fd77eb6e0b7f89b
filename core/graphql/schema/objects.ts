/**
 * A table's output types for one role: the row object (columns, object/array relationships and
 * `<rel>_aggregate`), `<t>_aggregate`, `<t>_aggregate_fields` and `<t>_<op>_fields`, plus the
 * select arguments every list of rows takes.
 */
import {
  GraphQLFloat,
  GraphQLInt,
  GraphQLBoolean,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLEnumType,
  type GraphQLScalarType,
} from 'graphql';
import { scalarType } from '../scalars.js';
import type { ColumnView, TableView } from '../plan/view.js';
import {
  aggregateOps,
  boolExpType,
  columnEnumType,
  columnsForOp,
  orderByType,
  quoted,
  selectColumnEnum,
} from './inputs.js';
import { sortedFields, type TypeRegistry } from './registry.js';
import { argsArgument, withArgs } from './function-types.js';
import { PATH_ARG } from '../plan/json-path.js';
import { qualifiedTableName } from '../../metadata/types.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

/** The type of one value of a column (nullable): its scalar, enum, or list of scalars. */
export function columnValueType(
  reg: TypeRegistry,
  c: ColumnView,
): GraphQLScalarType | GraphQLEnumType | GraphQLList<GraphQLNonNull<GraphQLScalarType>> {
  const e = columnEnumType(reg, c);
  if (e) return e;
  const s = scalarType(c.info.name!);
  return c.info.isArray ? new GraphQLList(new GraphQLNonNull(s)) : s;
}

export function tableDescription(view: TableView): string {
  return view.table.description ?? `columns and relationships of ${quoted(view)}`;
}

export function columnDescription(c: ColumnView): string | undefined {
  return c.column.description ?? undefined;
}

export function objectType(reg: TypeRegistry, view: TableView): GraphQLObjectType {
  const name = view.names.object;
  return reg.get(name, () =>
    new GraphQLObjectType({
      name,
      description: tableDescription(view),
      ...(view.interfaces ? { interfaces: view.interfaces } : {}),
      fields: () => {
        const fields: Fields = {};
        for (const c of view.columns) {
          const t = columnValueType(reg, c);
          fields[c.field] = { type: c.column.nullable || c.forceNullable ? t : new GraphQLNonNull(t), description: columnDescription(c) };
          // As the reference: json and jsonb columns select a value inside them with `path`.
          if (!c.info.isArray && (c.info.dbType === 'json' || c.info.dbType === 'jsonb')) {
            fields[c.field]!.args = { [PATH_ARG]: { type: GraphQLString, description: 'JSON select path' } };
          }
        }
        for (const r of view.relationships) {
          const target = objectType(reg, r.target);
          if (r.rel.kind === 'object') {
            fields[r.field] = {
              type: r.rel.required ? new GraphQLNonNull(target) : target,
              description: r.rel.comment ?? 'An object relationship',
            };
            continue;
          }
          fields[r.field] = {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target))),
            args: selectArgs(reg, r.target),
            description: r.rel.comment ?? 'An array relationship',
          };
          if (r.aggregateField) {
            fields[r.aggregateField] = {
              type: new GraphQLNonNull(aggregateType(reg, r.target)),
              args: selectArgs(reg, r.target),
              description: 'An aggregate relationship',
            };
          }
        }
        for (const c of view.computedFields) fields[c.field] = computedFieldConfig(reg, view, c);
        for (const [name, extra] of view.extraFields ?? []) if (!(name in fields)) fields[name] = extra.config();
        return sortedFields(fields);
      },
    }),
  );
}

/** A computed field: a nullable scalar, or the rows of its table with the usual select arguments. */
function computedFieldConfig(reg: TypeRegistry, view: TableView, c: TableView['computedFields'][number]): Fields[string] {
  const description = c.cf.description ?? undefined;
  const args = argsArgument(
    reg,
    c.cf.argsTypeName,
    c.args,
    `input parameters for computed field "${c.field}" defined on table "${qualifiedTableName(view.table.table)}"`,
  );
  if (c.target) {
    const rows = new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectType(reg, c.target))));
    return { type: rows, args: withArgs(args, selectArgs(reg, c.target)), description };
  }
  const s = scalarType(c.scalar!.graphqlType);
  return { type: c.scalar!.info.isArray ? new GraphQLList(new GraphQLNonNull(s)) : s, args: withArgs(args, {}), description };
}

/** `distinct_on, limit, offset, order_by, where`, leaving out what the role has nothing for. */
export function selectArgs(reg: TypeRegistry, view: TableView): GraphQLFieldConfigArgumentMap {
  const n = view.naming;
  const args: GraphQLFieldConfigArgumentMap = {};
  const columns = view.distinctOn === false ? null : selectColumnEnum(reg, view);
  if (columns) {
    args[n.field('distinct_on')] = { type: new GraphQLList(new GraphQLNonNull(columns)), description: 'distinct select on columns' };
  }
  args[n.field('limit')] = { type: GraphQLInt, description: 'limit the number of rows returned' };
  args[n.field('offset')] = { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by' };
  const orderBy = orderByType(reg, view);
  if (orderBy) {
    args[n.field('order_by')] = { type: new GraphQLList(new GraphQLNonNull(orderBy)), description: 'sort the rows by one or more columns' };
  }
  args[n.field('where')] = { type: boolExpType(reg, view), description: 'filter the rows returned' };
  return sortedArgs(args);
}

function sortedArgs(args: GraphQLFieldConfigArgumentMap): GraphQLFieldConfigArgumentMap {
  const out: GraphQLFieldConfigArgumentMap = {};
  for (const k of Object.keys(args).sort()) out[k] = args[k]!;
  return out;
}

export function aggregateType(reg: TypeRegistry, view: TableView): GraphQLObjectType {
  const name = view.names.aggregate;
  return reg.get(name, () =>
    new GraphQLObjectType({
      name,
      description: `aggregated selection of ${quoted(view)}`,
      fields: () => ({
        aggregate: { type: aggregateFieldsType(reg, view) },
        nodes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectType(reg, view)))) },
      }),
    }),
  );
}

function aggregateFieldsType(reg: TypeRegistry, view: TableView): GraphQLObjectType {
  const name = view.names.aggregateFields;
  return reg.get(name, () =>
    new GraphQLObjectType({
      name,
      description: `aggregate fields of ${quoted(view)}`,
      fields: () => {
        const n = view.naming;
        const columns = selectColumnEnum(reg, view);
        const countArgs: GraphQLFieldConfigArgumentMap = {};
        if (columns) countArgs.columns = { type: new GraphQLList(new GraphQLNonNull(columns)) };
        countArgs.distinct = { type: GraphQLBoolean };
        const fields: Fields = { count: { type: new GraphQLNonNull(GraphQLInt), args: countArgs } };
        for (const op of aggregateOps(view)) fields[n.field(op)] = { type: opFieldsType(reg, view, op) };
        return sortedFields(fields);
      },
    }),
  );
}

function opFieldsType(reg: TypeRegistry, view: TableView, op: string): GraphQLObjectType {
  const name = view.names.opFields(op);
  return reg.get(name, () =>
    new GraphQLObjectType({
      name,
      description: `aggregate ${view.naming.field(op)} on columns`,
      fields: () => {
        const fields: Fields = {};
        for (const c of columnsForOp(view, op)) {
          // sum, max and min keep the column's type; the statistical ones are floating point.
          const keepsType = op === 'sum' || op === 'max' || op === 'min';
          fields[c.field] = { type: keepsType ? columnValueType(reg, c) : GraphQLFloat, description: columnDescription(c) };
        }
        return sortedFields(fields);
      },
    }),
  );
}
