/**
 * graphql-js's KnownTypeNamesRule, asking the schema for each name instead of listing its type
 * map up front. graphql-js's rule lists every type name when it is created (for its "did you mean"
 * suggestions), which makes a lazily built role schema (schema/lazy-schema.ts) build all of its
 * types for every document. Here a name the schema holds passes by `getType`; an unknown one is
 * handed to graphql-js's own rule, which reports it with its own message and suggestions.
 */
import { KnownTypeNamesRule, isTypeDefinitionNode, type ASTVisitFn, type ASTVisitor, type NamedTypeNode, type ValidationContext } from 'graphql';

export function KnownTypeNamesByLookupRule(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  const defined = new Set<string>();
  for (const d of context.getDocument().definitions) {
    if (isTypeDefinitionNode(d)) defined.add(d.name.value);
  }
  let graphqlRule: ASTVisitFn<NamedTypeNode> | null = null;
  return {
    NamedType(node: NamedTypeNode, key, parent, path, ancestors) {
      const name = node.name.value;
      if (defined.has(name) || schema?.getType(name)) return;
      // graphql-js's rule is a NamedType visit function.
      graphqlRule ??= (KnownTypeNamesRule(context) as { NamedType: ASTVisitFn<NamedTypeNode> }).NamedType;
      return graphqlRule.call(undefined, node, key, parent, path, ancestors);
    },
  };
}
