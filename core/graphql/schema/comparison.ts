/**
 * Shared input types: the `order_by` enum and the per-scalar comparison types, with exactly the
 * reference engine's operators (9 for every type; the 10 pattern operators for string types;
 * `_contains`, `_contained_in`, `_has_key*` and `_cast` for jsonb; `_contains`/`_contained_in`
 * for arrays; the 5 equality operators for enum-table columns) and its description strings.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import { scalarType } from '../scalars.js';
import type { ColumnView } from '../plan/view.js';
import type { KindOperatorSpec, TypeOperators } from '../../db/operators.js';
import type { Naming } from './naming.js';
import { sortedFields, type TypeRegistry } from './registry.js';

const ORDER_BY_VALUES: ReadonlyArray<[string, string]> = [
  ['asc', 'in ascending order, nulls last'],
  ['asc_nulls_first', 'in ascending order, nulls first'],
  ['asc_nulls_last', 'in ascending order, nulls last'],
  ['desc', 'in descending order, nulls first'],
  ['desc_nulls_first', 'in descending order, nulls first'],
  ['desc_nulls_last', 'in descending order, nulls last'],
];

export function orderByEnum(reg: TypeRegistry, naming: Naming): GraphQLEnumType {
  const name = naming.sharedType('order_by');
  return reg.get(name, () =>
    new GraphQLEnumType({
      name,
      description: 'column ordering options',
      values: Object.fromEntries(
        ORDER_BY_VALUES.map(([v, description]) => [naming.enumValue(v), { value: v, description }]),
      ),
    }),
  );
}

const STRING_OPS: ReadonlyArray<[string, string]> = [
  ['_like', 'does the column match the given pattern'],
  ['_nlike', 'does the column NOT match the given pattern'],
  ['_ilike', 'does the column match the given case-insensitive pattern'],
  ['_nilike', 'does the column NOT match the given case-insensitive pattern'],
  ['_similar', 'does the column match the given SQL regular expression'],
  ['_nsimilar', 'does the column NOT match the given SQL regular expression'],
  ['_regex', 'does the column match the given POSIX regular expression, case sensitive'],
  ['_iregex', 'does the column match the given POSIX regular expression, case insensitive'],
  ['_nregex', 'does the column NOT match the given POSIX regular expression, case sensitive'],
  ['_niregex', 'does the column NOT match the given POSIX regular expression, case insensitive'],
];

const describe = (typeName: string): string =>
  `Boolean expression to compare columns of type "${typeName}". All fields are combined with logical 'AND'.`;

const nn = <T extends GraphQLInputType>(t: T): GraphQLNonNull<T> => new GraphQLNonNull(t);
const list = (t: GraphQLInputType): GraphQLList<GraphQLInputType> => new GraphQLList(t);

/** The comparison input type of a column (`Int_comparison_exp`, `String_array_comparison_exp`, ...). */
export function comparisonType(
  reg: TypeRegistry,
  naming: Naming,
  column: Pick<ColumnView, 'info'> & { column?: { operators?: TypeOperators } },
  enumType?: GraphQLEnumType,
): GraphQLInputObjectType {
  if (enumType) return enumComparison(reg, naming, enumType);
  const scalar = column.info.name!;
  if (column.info.isArray) return arrayComparison(reg, naming, scalar);
  const operators = column.column?.operators;
  return scalarComparison(reg, naming, scalar, {
    stringLike: column.info.stringLike,
    jsonb: column.info.jsonb,
    ...(operators ? { operators } : {}),
  });
}

function equalityOps(naming: Naming, value: GraphQLInputType, listOf: GraphQLInputType): GraphQLInputFieldConfigMap {
  const f = (op: string): string => naming.field(op);
  return {
    [f('_eq')]: { type: value },
    [f('_in')]: { type: list(nn(listOf)) },
    [f('_is_null')]: { type: GraphQLBoolean },
    [f('_neq')]: { type: value },
    [f('_nin')]: { type: list(nn(listOf)) },
  };
}

function orderingOps(naming: Naming, value: GraphQLInputType): GraphQLInputFieldConfigMap {
  const f = (op: string): string => naming.field(op);
  return { [f('_gt')]: { type: value }, [f('_gte')]: { type: value }, [f('_lt')]: { type: value }, [f('_lte')]: { type: value } };
}

export function scalarComparison(
  reg: TypeRegistry,
  naming: Naming,
  scalar: string,
  kind: { stringLike: boolean; jsonb: boolean; operators?: TypeOperators },
): GraphQLInputObjectType {
  const name = naming.sharedType(`${scalar}_comparison_exp`);
  return reg.get(name, () => {
    const t = scalarType(scalar);
    return new GraphQLInputObjectType({
      name,
      description: describe(scalar),
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = { ...equalityOps(naming, t, t) };
        if (kind.operators?.ordering !== false) Object.assign(fields, orderingOps(naming, t));
        if (kind.stringLike) {
          for (const [op, description] of STRING_OPS) fields[naming.field(op)] = { type: t, description };
        }
        if (kind.jsonb) Object.assign(fields, jsonbOps(reg, naming, t));
        if (kind.operators) Object.assign(fields, kindOps(reg, naming, scalar, kind.operators));
        return sortedFields(fields);
      },
    });
  });
}

/** The operators a database kind adds for its type (PostGIS, ltree), and `_cast` between its types. */
function kindOps(reg: TypeRegistry, naming: Naming, scalar: string, ops: TypeOperators): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const op of ops.operators) {
    fields[naming.field(op.name)] = { type: kindOperatorInput(reg, naming, op), ...(op.description ? { description: op.description } : {}) };
  }
  if (ops.casts.length > 0) {
    const castName = naming.sharedType(`${scalar}_cast_exp`);
    const cast = reg.get(castName, () =>
      new GraphQLInputObjectType({
        name: castName,
        fields: () =>
          Object.fromEntries(
            ops.casts.map((c) => {
              const target = c.operators();
              const type = scalarComparison(reg, naming, c.graphqlType, { stringLike: false, jsonb: false, ...(target ? { operators: target } : {}) });
              return [c.graphqlType, { type }];
            }),
          ),
      }),
    );
    fields[naming.field('_cast')] = { type: cast };
  }
  return fields;
}

function kindOperatorInput(reg: TypeRegistry, naming: Naming, op: KindOperatorSpec): GraphQLInputType {
  const input = op.input;
  if (input.kind === 'value') {
    const t = scalarType(input.graphqlType);
    return input.array ? list(nn(t)) : t;
  }
  const name = naming.sharedType(input.typeName);
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      fields: () =>
        Object.fromEntries(
          input.fields.map((f) => {
            const one = scalarType(f.graphqlType);
            const t: GraphQLInputType = f.array ? list(nn(one)) : one;
            return [
              naming.field(f.name),
              { type: f.required ? nn(t) : t, ...(f.defaultValue !== undefined ? { defaultValue: f.defaultValue } : {}) },
            ];
          }),
        ),
    }),
  );
}

function jsonbOps(reg: TypeRegistry, naming: Naming, jsonb: GraphQLInputType): GraphQLInputFieldConfigMap {
  const f = (op: string): string => naming.field(op);
  const castName = naming.sharedType('jsonb_cast_exp');
  const cast = reg.get(castName, () =>
    new GraphQLInputObjectType({
      name: castName,
      fields: () => ({ String: { type: scalarComparison(reg, naming, 'String', { stringLike: true, jsonb: false }) } }),
    }),
  );
  return {
    [f('_cast')]: { type: cast },
    [f('_contained_in')]: { type: jsonb, description: 'is the column contained in the given json value' },
    [f('_contains')]: { type: jsonb, description: 'does the column contain the given json value at the top level' },
    [f('_has_key')]: { type: GraphQLString, description: 'does the string exist as a top-level key in the column' },
    [f('_has_keys_all')]: {
      type: list(nn(GraphQLString)),
      description: 'do all of these strings exist as top-level keys in the column',
    },
    [f('_has_keys_any')]: {
      type: list(nn(GraphQLString)),
      description: 'do any of these strings exist as top-level keys in the column',
    },
  };
}

function arrayComparison(reg: TypeRegistry, naming: Naming, scalar: string): GraphQLInputObjectType {
  const name = naming.sharedType(`${scalar}_array_comparison_exp`);
  return reg.get(name, () => {
    const arr = list(nn(scalarType(scalar)));
    return new GraphQLInputObjectType({
      name,
      description: describe(scalar),
      fields: () =>
        sortedFields({
          ...equalityOps(naming, arr, arr),
          ...orderingOps(naming, arr),
          [naming.field('_contained_in')]: { type: arr, description: 'is the array contained in the given array value' },
          [naming.field('_contains')]: { type: arr, description: 'does the array contain the given value' },
        }),
    });
  });
}

function enumComparison(reg: TypeRegistry, naming: Naming, enumType: GraphQLEnumType): GraphQLInputObjectType {
  const name = naming.sharedType(`${enumType.name}_comparison_exp`);
  return reg.get(name, () =>
    new GraphQLInputObjectType({
      name,
      description: describe(enumType.name),
      fields: () => sortedFields(equalityOps(naming, enumType, enumType)),
    }),
  );
}
