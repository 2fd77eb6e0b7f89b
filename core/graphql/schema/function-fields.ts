/**
 * The root fields of tracked functions for one role: `<fn>` (a list of the table's rows for a
 * SETOF function, else one nullable row) and `<fn>_aggregate` (with `allow_aggregations`, like
 * the table's own) under query and subscription; a function exposed as a mutation gets `<fn>`
 * under the mutation root only. Each takes `args` (see ./function-types.ts) besides the select
 * arguments of its table. Descriptions: the function's comment, else the reference's generated ones.
 */
import { GraphQLList, GraphQLNonNull } from 'graphql';
import { qualifiedTableName } from '../../metadata/types.js';
import type { RootFieldEntry } from '../schema-draft.js';
import type { FunctionView } from '../plan/view.js';
import { functionPlanner } from '../plan/function.js';
import { aggregateType, objectType, selectArgs } from './objects.js';
import { argsArgument, withArgs } from './function-types.js';
import type { TypeRegistry } from './registry.js';

export interface FunctionRootFields {
  query: Map<string, RootFieldEntry>;
  mutation: Map<string, RootFieldEntry>;
}

export function functionRootFields(reg: TypeRegistry, functions: readonly FunctionView[]): FunctionRootFields {
  const out: FunctionRootFields = { query: new Map(), mutation: new Map() };
  for (const fv of functions) {
    const { fn, target } = fv;
    const name = `"${qualifiedTableName(fn.function)}"`;
    const table = `"${qualifiedTableName(target.table.table)}"`;
    const row = objectType(reg, target);
    const type = fn.returnsSet ? new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(row))) : row;
    const args = (fieldName: string) =>
      withArgs(argsArgument(reg, fn.argsTypeName, fv.args, `input parameters for function "${fieldName}"`), selectArgs(reg, target));
    const field = fn.rootFields.function;
    if (fn.exposedAs === 'mutation') {
      out.mutation.set(field, {
        config: { type, args: args(field), description: fn.description ?? `execute VOLATILE function ${name} which returns ${table}` },
        planner: functionPlanner(fv, 'mutation'),
      });
      continue;
    }
    out.query.set(field, {
      config: { type, args: args(field), description: fn.description ?? `execute function ${name} which returns ${table}` },
      planner: functionPlanner(fv, 'query'),
    });
    if (target.access.allowAggregations) {
      const aggregate = fn.rootFields.function_aggregate;
      out.query.set(aggregate, {
        config: {
          type: new GraphQLNonNull(aggregateType(reg, target)),
          args: args(aggregate),
          description: `execute function ${name} and query aggregates on result of table type ${table}`,
        },
        planner: functionPlanner(fv, 'aggregate'),
      });
    }
  }
  return out;
}
