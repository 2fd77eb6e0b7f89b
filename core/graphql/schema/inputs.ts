/**
 * A table's input types for one role: `<t>_select_column`, `<t>_bool_exp` (with relationship
 * and aggregate-predicate fields), `<t>_order_by` (with relationships and `<rel>_aggregate`),
 * and the aggregate order-by / bool-exp types. Only permitted columns and selectable
 * relationship targets appear.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { qualifiedTableName } from '../../metadata/types.js';
import type { ColumnView, TableView } from '../plan/view.js';
import { comparisonType, orderByEnum, scalarComparison } from './comparison.js';
import { sortedFields, type TypeRegistry } from './registry.js';
import { filterableComputedField, rowsComputedField } from '../plan/bool-exp.js';
import { aggregatePredicatesOf, PAIR_ARGUMENTS, type AggregatePredicateSignature } from '../aggregate-predicates.js';

export const NUMERIC_AGGREGATES = ['avg', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance'] as const;
export const COMPARABLE_AGGREGATES = ['max', 'min'] as const;

export const quoted = (view: TableView): string => `"${qualifiedTableName(view.table.table)}"`;

export const numericColumns = (view: TableView): ColumnView[] => view.columns.filter((c) => c.info.numeric && !c.enumValues);
export const comparableColumns = (view: TableView): ColumnView[] =>
  view.columns.filter((c) => c.info.comparable && !c.enumValues);

/** Aggregate operators with at least one applicable column, in name order. */
export function aggregateOps(view: TableView): string[] {
  const ops: string[] = [];
  if (numericColumns(view).length > 0) ops.push(...NUMERIC_AGGREGATES);
  if (comparableColumns(view).length > 0) ops.push(...COMPARABLE_AGGREGATES);
  return ops.sort();
}

export const columnsForOp = (view: TableView, op: string): ColumnView[] =>
  (COMPARABLE_AGGREGATES as readonly string[]).includes(op) ? comparableColumns(view) : numericColumns(view);

/** The GraphQL enum of an enum-table column (`<enum_table>_enum`). */
export function columnEnumType(reg: TypeRegistry, column: ColumnView): GraphQLEnumType | undefined {
  const values = column.enumValues;
  if (!values) return undefined;
  return reg.get(column.graphqlType, () =>
    new GraphQLEnumType({
      name: column.graphqlType,
      values: Object.fromEntries(
        [...values.keys()].sort().map((k) => [k, { value: k, description: column.enumDescriptions?.get(k) }]),
      ),
    }),
  );
}

export function selectColumnEnum(reg: TypeRegistry, view: TableView): GraphQLEnumType | null {
  if (view.columns.length === 0) return null;
  const name = view.names.selectColumn;
  return reg.get(name, () =>
    new GraphQLEnumType({
      name,
      description: `select columns of table ${quoted(view)}`,
      values: Object.fromEntries(
        view.columns.map((c) => c.field).sort().map((f) => [f, { value: f, description: 'column name' }]),
      ),
    }),
  );
}

export function boolExpType(reg: TypeRegistry, view: TableView): GraphQLInputObjectType {
  const name = view.names.boolExp;
  return reg.get(name, () => {
    const self: GraphQLInputObjectType = new GraphQLInputObjectType({
      name,
      description: `Boolean expression to filter rows from the table ${quoted(view)}. All fields are combined with a logical 'AND'.`,
      fields: () => {
        const list = new GraphQLList(new GraphQLNonNull(self));
        const fields: GraphQLInputFieldConfigMap = { _and: { type: list }, _not: { type: self }, _or: { type: list } };
        for (const c of view.columns) {
          fields[c.field] = { type: comparisonType(reg, view.naming, c, columnEnumType(reg, c)) };
        }
        for (const c of filterableComputedFields(view)) fields[c.field] = { type: comparisonType(reg, view.naming, c.scalar!) };
        for (const c of view.computedFields) {
          if (rowsComputedField(view, c.field)) fields[c.field] = { type: boolExpType(reg, c.target!) };
        }
        for (const r of view.relationships) {
          fields[r.field] = { type: boolExpType(reg, r.target) };
          // A kind that offers no aggregate predicates (BigQuery) gets no `<rel>_aggregate` filter:
          // an input type without fields would make the whole schema invalid.
          if (r.aggregateField && reg.aggregatePredicates && aggregatePredicatesOf(r.target.table.scalars).length > 0) {
            fields[r.aggregateField] = { type: aggregateBoolExpType(reg, r.target) };
          }
        }
        return sortedFields(fields);
      },
    });
    return self;
  });
}

/**
 * `<t>_aggregate_bool_exp`: one field per aggregate function the table's visible columns allow
 * (core/graphql/aggregate-predicates.ts): `count` always, the others when there are columns of
 * their argument type.
 */
function aggregateBoolExpType(reg: TypeRegistry, view: TableView): GraphQLInputObjectType {
  const n = view.naming;
  const name = view.names.aggregateBoolExp;
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const sig of aggregatePredicatesOf(view.table.scalars)) {
          if (sig.args === 'star' || predicateColumns(view, sig).length > 0) fields[n.field(sig.fn)] = { type: predicateType(reg, view, sig) };
        }
        return sortedFields(fields);
      },
    }),
  );
}

/** The columns an aggregate predicate may take as its argument (of its exact argument type). */
export function predicateColumns(view: TableView, sig: AggregatePredicateSignature): TableView['columns'] {
  return view.columns.filter((c) => !c.info.isArray && !c.enumValues && c.info.dbType === sig.argType);
}

function predicateType(reg: TypeRegistry, view: TableView, sig: AggregatePredicateSignature): GraphQLInputObjectType {
  const n = view.naming;
  const name = view.names.aggregateBoolExpFn(sig.fn);
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {
          [n.field('distinct')]: { type: GraphQLBoolean },
          [n.field('filter')]: { type: boolExpType(reg, view) },
        };
        if (sig.args === 'star') {
          const cols = selectColumnEnum(reg, view);
          if (cols) fields[n.field('arguments')] = { type: new GraphQLList(new GraphQLNonNull(cols)) };
        } else if (sig.args === 'single') {
          fields[n.field('arguments')] = { type: new GraphQLNonNull(predicateColumnsEnum(reg, view, sig)) };
        } else {
          fields[n.field('arguments')] = { type: new GraphQLNonNull(pairArgumentsType(reg, view, sig)) };
        }
        const kind = { stringLike: false, jsonb: false };
        fields[n.field('predicate')] = { type: new GraphQLNonNull(scalarComparison(reg, n, sig.returns.graphqlType, kind)) };
        return sortedFields(fields);
      },
    }),
  );
}

/** `corr`/`covar_samp`: `<t>_aggregate_bool_exp_<fn>_arguments {X: <columns>!, Y: <columns>!}`. */
function pairArgumentsType(reg: TypeRegistry, view: TableView, sig: AggregatePredicateSignature): GraphQLInputObjectType {
  const name = view.naming.type(`${view.table.identifier}_aggregate_bool_exp_${sig.fn}_arguments`);
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      fields: () => {
        const columns = new GraphQLNonNull(predicateColumnsEnum(reg, view, sig));
        return sortedFields(Object.fromEntries(PAIR_ARGUMENTS.map((a) => [a, { type: columns }])) as GraphQLInputFieldConfigMap);
      },
    }),
  );
}

function predicateColumnsEnum(reg: TypeRegistry, view: TableView, sig: AggregatePredicateSignature): GraphQLEnumType {
  const name = view.names.aggregateBoolExpFnColumns(sig.fn);
  const argsName = view.naming.type(`${view.table.identifier}_aggregate_bool_exp_${sig.fn}_arguments_columns`);
  return reg.get(name, () =>
    new GraphQLEnumType({
      name,
      description: `select "${argsName}" columns of table ${quoted(view)}`,
      values: Object.fromEntries(
        predicateColumns(view, sig).map((c) => c.field).sort()
          .map((f) => [f, { value: f, description: 'column name' }]),
      ),
    }),
  );
}

/** Scalar computed fields without client arguments: the ones `where` and `order_by` take. */
const filterableComputedFields = (view: TableView): TableView['computedFields'] =>
  view.computedFields.filter((c) => filterableComputedField(view, c.field) !== undefined);

/** `<t>_order_by`, or null when the role can order by nothing of the table. */
export function orderByType(reg: TypeRegistry, view: TableView): GraphQLInputObjectType | null {
  const objectRels = view.relationships.filter((r) => r.rel.kind === 'object' && r.target.columns.length > 0);
  const aggRels = view.relationships.filter((r) => r.aggregateField);
  const computed = filterableComputedFields(view);
  const computedAggs = view.computedFields.filter((c) => rowsComputedField(view, c.field));
  if (view.columns.length + objectRels.length + aggRels.length + computed.length + computedAggs.length === 0) return null;
  const name = view.names.orderBy;
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `Ordering options when selecting data from ${quoted(view)}.`,
      fields: () => {
        const order = orderByEnum(reg, view.naming);
        const fields: GraphQLInputFieldConfigMap = {};
        for (const c of view.columns) fields[c.field] = { type: order };
        for (const c of computed) fields[c.field] = { type: order };
        for (const r of objectRels) {
          const t = orderByType(reg, r.target);
          if (t) fields[r.field] = { type: t };
        }
        for (const r of aggRels) fields[r.aggregateField!] = { type: aggregateOrderByType(reg, r.target) };
        for (const c of computedAggs) fields[view.naming.field(`${c.field}_aggregate`)] = { type: aggregateOrderByType(reg, c.target!) };
        return sortedFields(fields);
      },
    }),
  );
}

function aggregateOrderByType(reg: TypeRegistry, view: TableView): GraphQLInputObjectType {
  const name = view.names.aggregateOrderBy;
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `order by aggregate values of table ${quoted(view)}`,
      fields: () => {
        const n = view.naming;
        const fields: GraphQLInputFieldConfigMap = { [n.field('count')]: { type: orderByEnum(reg, n) } };
        for (const op of aggregateOps(view)) fields[n.field(op)] = { type: opOrderByType(reg, view, op) };
        return sortedFields(fields);
      },
    }),
  );
}

function opOrderByType(reg: TypeRegistry, view: TableView, op: string): GraphQLInputObjectType {
  const name = view.names.opOrderBy(op);
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      description: `order by ${op}() on columns of table ${quoted(view)}`,
      fields: () =>
        sortedFields(Object.fromEntries(columnsForOp(view, op).map((c) => [c.field, { type: orderByEnum(reg, view.naming) }]))),
    }),
  );
}
