/** Identifiers in brackets (a `]` doubled), and the few literals the compiler writes itself. */
import { checkSqlName, EngineError, graphqlName, type TableRef } from '../../../../core/sdk/index.js';

/** Names holding NUL or the compiler's marker characters are refused, not escaped. */
export function checkName(name: string): string {
  checkSqlName(name);
  // SQL Server's identifiers are at most 128 characters; a longer one could never name anything.
  if (name.length > 128) throw new EngineError('validation-failed', `the name ${JSON.stringify(name.slice(0, 32))}... is longer than 128 characters`);
  return name;
}

export function quoteIdent(name: string): string {
  checkName(name);
  return '[' + name.replace(/]/g, ']]') + ']';
}

export const quoteTable = (t: TableRef): string => quoteIdent(t.schema) + '.' + quoteIdent(t.name);

/**
 * A string literal for what the compiler writes as data (GraphQL type names, already checked to be
 * GraphQL names); anything else is refused rather than escaped.
 */
export const nameLiteral = (name: string): string => `N'${graphqlName(name)}'`;

/** A JSON key as a FOR JSON column alias: a GraphQL name, in brackets (a dot would nest it). */
export const jsonKey = (name: string): string => `[${graphqlName(name)}]`;
