/**
 * A role schema validated over the types no earlier schema validated. Roles of one read-type group
 * share most of their types (every select type, bool_exp, order_by, aggregate...), and
 * graphql-js's `assertValidSchema` checks a schema's every type: at 1,000 tables, each role with a
 * schema of its own over shared read types validated the same 30,000 types again.
 *
 * What graphql-js checks of a named type depends on the type alone (its name, fields, arguments,
 * interfaces, members, values, input fields) and on the types it reaches (input cycles, interface
 * field subtyping), which are the same objects in every schema holding it; types are not changed
 * after they are built. So a type that passed in one schema passes in any: the schema's fresh
 * types go through graphql-js's own validation together with its root types and directives, and
 * the schema is then marked valid as graphql-js marks it. Which types are fresh is the caller's
 * to know (assemble.ts: the types no assembled schema held yet).
 */
import { assertValidSchema, type GraphQLNamedType, type GraphQLSchema } from 'graphql';

/** Throws as `assertValidSchema` does when the schema is invalid, having checked of its types only `fresh`. */
export function assertValidSchemaOver(schema: GraphQLSchema, fresh: readonly GraphQLNamedType[]): void {
  const typeMap = schema.getTypeMap();
  if (fresh.length === Object.keys(typeMap).length) {
    assertValidSchema(schema);
    return;
  }
  const only = Object.create(null) as Record<string, GraphQLNamedType>;
  for (const type of fresh) only[type.name] = type;
  // graphql-js validates the roots and directives of the schema it is given, and the types of its
  // type map: a view of this schema whose map holds only the fresh types. The view's verdict is
  // its own property; the schema's is set below, once it holds.
  const view = Object.create(schema, { getTypeMap: { value: () => only } }) as GraphQLSchema;
  assertValidSchema(view);
  schema.__validationErrors = [];
}
