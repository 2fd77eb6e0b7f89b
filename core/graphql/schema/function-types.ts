/**
 * GraphQL types of function calls: the `args` input object (`<fn>_args`, or
 * `<field>_<table>_args` for a computed field) and the field arguments of a function's root
 * fields and of computed fields. Every argument is nullable, as every SQL argument accepts NULL;
 * `args` itself is required when some argument has no default (the reference's rule), and is
 * absent when the client supplies nothing.
 */
import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLArgumentConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import { scalarType } from '../scalars.js';
import type { FunctionArgView } from '../plan/view.js';
import { ARGS_FIELD } from '../plan/function.js';
import type { TypeRegistry } from './registry.js';

function argType(a: FunctionArgView): GraphQLInputType {
  const s = scalarType(a.graphqlType);
  return a.info.isArray ? new GraphQLList(new GraphQLNonNull(s)) : s;
}

/** The `args` argument, or null when there is nothing to supply. */
export function argsArgument(reg: TypeRegistry, typeName: string, args: readonly FunctionArgView[], description: string): GraphQLArgumentConfig | null {
  if (args.length === 0) return null;
  const type = reg.get(typeName, () =>
    new GraphQLInputObjectType({
      name: typeName,
      fields: () => {
        // Arguments with a default first, then the others, each in SQL order, as the reference lists them.
        const ordered = [...args.filter((a) => a.arg.hasDefault), ...args.filter((a) => !a.arg.hasDefault)];
        const fields: GraphQLInputFieldConfigMap = {};
        for (const a of ordered) fields[a.arg.field] = { type: argType(a) };
        return fields;
      },
    }),
  );
  const required = args.some((a) => !a.arg.hasDefault);
  return { type: required ? new GraphQLNonNull(type) : type, description };
}

/** `args` (when any) followed by the other arguments, in name order. */
export function withArgs(args: GraphQLArgumentConfig | null, rest: GraphQLFieldConfigArgumentMap): GraphQLFieldConfigArgumentMap {
  const all: GraphQLFieldConfigArgumentMap = { ...rest };
  if (args) all[ARGS_FIELD] = args;
  const out: GraphQLFieldConfigArgumentMap = {};
  for (const k of Object.keys(all).sort()) out[k] = all[k]!;
  return out;
}
