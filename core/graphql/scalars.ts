/**
 * GraphQL scalar types. Which scalar a database type becomes, and what it supports, is the
 * kind's to say (`DatabaseKind.scalarTypes`, core/db/scalar-types.ts); the schema cache holds
 * each source's `ScalarTypes`.
 *
 * Custom scalars accept any JSON input and serialize as-is: values are passed to the database as
 * parameters and cast there, and results come back as JSON the database built.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  valueFromASTUntyped,
} from 'graphql';
import type { ScalarInfo } from '../db/scalar-types.js';

export type { ScalarInfo } from '../db/scalar-types.js';

/**
 * The IR's own value types (`int4` for counts and limits, `text` for casts and JSON keys, `bool`
 * for `_is_null`), which every kind's compiler understands: their facts do not depend on a kind.
 */
export const IR_SCALARS: Readonly<Record<'int4' | 'text' | 'bool', ScalarInfo>> = {
  int4: { dbType: 'int4', name: 'Int', isArray: false, numeric: true, comparable: true, stringLike: false, jsonb: false, boolean: false, keepsNumericText: false },
  text: { dbType: 'text', name: 'String', isArray: false, numeric: false, comparable: true, stringLike: true, jsonb: false, boolean: false, keepsNumericText: false },
  bool: { dbType: 'bool', name: 'Boolean', isArray: false, numeric: false, comparable: false, stringLike: false, jsonb: false, boolean: true, keepsNumericText: false },
};

const BUILT_IN: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
};

// Scalar types hold no per-schema state, so one instance per name serves every role schema.
const customScalars = new Map<string, GraphQLScalarType>();

/** The GraphQL scalar type of a scalar name: a built-in, or a pass-through custom scalar. */
export function scalarType(name: string): GraphQLScalarType {
  const builtIn = BUILT_IN[name];
  if (builtIn) return builtIn;
  let t = customScalars.get(name);
  if (!t) {
    t = new GraphQLScalarType({
      name,
      serialize: (v: unknown) => v,
      parseValue: (v: unknown) => v,
      parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables ?? undefined),
    });
    customScalars.set(name, t);
  }
  return t;
}
