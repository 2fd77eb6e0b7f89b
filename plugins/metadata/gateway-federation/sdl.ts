/**
 * `_service { sdl }`: the role's schema as SDL, with `@key(fields: "<pk fields>")` on each
 * entity's object type, so a gateway can compose it. Printed once per role schema. As the
 * reference, the SDL is the whole schema the role sees (root types by their `query_root` names in
 * a `schema` definition, the federation fields and types included); introspection types are not.
 */
import { GraphQLObjectType, printSchema, type GraphQLSchema } from 'graphql';

const printed = new WeakMap<GraphQLSchema, string>();

export function federationSdl(schema: GraphQLSchema, keys: ReadonlyMap<string, string>): string {
  const known = printed.get(schema);
  if (known !== undefined) return known;
  let sdl = printSchema(schema);
  for (const [typeName, fields] of keys) {
    if (!(schema.getType(typeName) instanceof GraphQLObjectType)) continue;
    // `type <name>` then optional `implements ...`, then the opening brace: the directive goes before it.
    const head = new RegExp(`^(type ${typeName}(?: implements [^{\\n]+)?) \\{$`, 'm');
    sdl = sdl.replace(head, `$1 @key(fields: ${JSON.stringify(fields)}) {`);
  }
  printed.set(schema, sdl);
  return sdl;
}
