/** Small helpers over GraphQL type expressions (`[Int!]!`) as parsed by graphql-js. */
import { Kind, type TypeNode } from 'graphql';

export function getNamedTypeName(t: TypeNode): string {
  return t.kind === Kind.NAMED_TYPE ? t.name.value : getNamedTypeName(t.type);
}

/** A list at the outermost level (under an optional non-null). */
export function isListTypeNode(t: TypeNode): boolean {
  if (t.kind === Kind.NON_NULL_TYPE) return isListTypeNode(t.type);
  return t.kind === Kind.LIST_TYPE;
}
