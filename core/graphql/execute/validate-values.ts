/**
 * Literal argument values checked against their input types with the reference engine's messages
 * (its schema parsers, `Hasura.GraphQL.Parser.Internal.{Input,Scalars,TypeChecking}`), so clients
 * matching on them see the same text: `expected a 32-bit integer for type 'Int', but found a
 * string`, `missing required field 'objects'`, `expected one of the values ['asc', ...] for type
 * 'order_by', but found 'up'`, `field 'x' not found in type: 't_bool_exp'`. Variables are checked
 * where their values are coerced, not here.
 */
import {
  Kind,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type ValueNode,
} from 'graphql';

export interface ValueProblem {
  message: string;
  /** Path segments below the argument: field names, and `[i]` list indexes. */
  at: string[];
}

/** How the reference describes a literal it did not expect. */
function describe(value: ValueNode): string {
  switch (value.kind) {
    case Kind.INT:
      return 'an integer';
    case Kind.FLOAT:
      return 'a float';
    case Kind.STRING:
      return 'a string';
    case Kind.BOOLEAN:
      return 'a boolean';
    case Kind.NULL:
      return 'null';
    case Kind.ENUM:
      return 'an enum value';
    case Kind.LIST:
      return 'a list';
    case Kind.OBJECT:
      return 'an object';
    default:
      return 'a variable';
  }
}

/** The built-in scalars: what the reference expects, and which literals it takes. */
const BUILT_IN: Readonly<Record<string, { expected: string; accepts: readonly Kind[] }>> = {
  Int: { expected: 'a 32-bit integer', accepts: [Kind.INT] },
  Float: { expected: 'a float', accepts: [Kind.INT, Kind.FLOAT] },
  String: { expected: 'a string', accepts: [Kind.STRING] },
  Boolean: { expected: 'a boolean', accepts: [Kind.BOOLEAN] },
  ID: { expected: 'a String or a 32-bit integer', accepts: [Kind.STRING, Kind.INT] },
};

const mismatch = (expected: string, type: string, value: ValueNode, at: string[]): ValueProblem => ({
  message: `expected ${expected} for type '${type}', but found ${describe(value)}`,
  at,
});

/** The first problem of `value` as a literal of `type`, or null. */
export function literalValueProblem(type: GraphQLInputType, value: ValueNode, at: string[] = []): ValueProblem | null {
  if (value.kind === Kind.VARIABLE) return null;
  if (value.kind === Kind.NULL && !isNonNullType(type)) return null;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    // A single value is coerced into a list of one, as the GraphQL spec says.
    if (value.kind !== Kind.LIST) return literalValueProblem(inner.ofType, value, at);
    for (const [i, item] of value.values.entries()) {
      const problem = literalValueProblem(inner.ofType, item, [...at, `[${i}]`]);
      if (problem) return problem;
    }
    return null;
  }
  if (isInputObjectType(inner)) {
    if (value.kind !== Kind.OBJECT) return mismatch('an object', inner.name, value, at);
    const fields = inner.getFields();
    for (const f of value.fields) {
      const def = fields[f.name.value];
      if (!def) return { message: `field '${f.name.value}' not found in type: '${inner.name}'`, at: [...at, f.name.value] };
      const problem = literalValueProblem(def.type, f.value, [...at, f.name.value]);
      if (problem) return problem;
    }
    for (const def of Object.values(fields)) {
      if (isNonNullType(def.type) && def.defaultValue === undefined && !value.fields.some((f) => f.name.value === def.name)) {
        return { message: `missing required field '${def.name}'`, at: [...at, def.name] };
      }
    }
    return null;
  }
  if (isEnumType(inner)) {
    if (value.kind !== Kind.ENUM) return mismatch('an enum value', inner.name, value, at);
    if (inner.getValue(value.value)) return null;
    const names = inner.getValues().map((v) => `'${v.name}'`).join(', ');
    return { message: `expected one of the values [${names}] for type '${inner.name}', but found '${value.value}'`, at };
  }
  if (isScalarType(inner)) {
    const builtIn = BUILT_IN[inner.name];
    if (builtIn && !builtIn.accepts.includes(value.kind)) return mismatch(builtIn.expected, inner.name, value, at);
  }
  return null;
}
