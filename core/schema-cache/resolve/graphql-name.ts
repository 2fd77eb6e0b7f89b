/**
 * GraphQL name rules (June 2018 spec §2.1.9), shared by the resolver and the metadata operations so
 * that a name accepted at operation time is never rejected when the cache is rebuilt.
 */

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function isGraphQLName(name: string): boolean {
  return GRAPHQL_NAME.test(name);
}

/** Enum values additionally exclude the three literals GraphQL reserves. */
export function isGraphQLEnumValue(name: string): boolean {
  return isGraphQLName(name) && name !== 'true' && name !== 'false' && name !== 'null';
}
