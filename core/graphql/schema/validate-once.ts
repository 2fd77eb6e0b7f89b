/**
 * Role schemas validated type by type, each type once per process. Roles of one read-type group
 * share most of their types (every select type, bool_exp, order_by, aggregate...), and
 * graphql-js's `assertValidSchema` checks a schema's every type: at 1,000 tables, each role with a
 * schema of its own over shared read types validated the same 30,000 types again.
 *
 * What graphql-js checks of a named type depends on the type alone (its name, fields, arguments,
 * interfaces, members, values, input fields) and on the types it reaches (input cycles, interface
 * field subtyping), which are the same objects in every schema holding it; types are not changed
 * after they are built. So a type that passed in one schema passes in any: a schema's types that
 * no schema has validated yet go through graphql-js's own validation together with the schema's
 * root types and directives, and the schema is then marked valid as graphql-js marks it.
 */
import { assertValidSchema, type GraphQLNamedType, type GraphQLSchema } from 'graphql';

const validated = new WeakSet<GraphQLNamedType>();

/** Throws as `assertValidSchema` does when the schema is invalid; validates only types not seen valid before. */
export function assertValidRoleSchema(schema: GraphQLSchema): void {
  const typeMap = schema.getTypeMap();
  const fresh: Record<string, GraphQLNamedType> = Object.create(null) as Record<string, GraphQLNamedType>;
  let freshCount = 0;
  let total = 0;
  for (const [name, type] of Object.entries(typeMap)) {
    total++;
    if (validated.has(type)) continue;
    fresh[name] = type;
    freshCount++;
  }
  if (freshCount === total) {
    assertValidSchema(schema);
  } else {
    // graphql-js validates the roots and directives of the schema it is given, and the types of
    // its type map: a view of this schema whose map holds only the fresh types. The view's verdict
    // is its own property; the schema's is set below, once it holds.
    const view = Object.create(schema, { getTypeMap: { value: () => fresh } }) as GraphQLSchema;
    assertValidSchema(view);
    schema.__validationErrors = [];
  }
  for (const type of Object.values(fresh)) validated.add(type);
}
