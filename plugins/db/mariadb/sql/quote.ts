/** Identifiers in backticks (a backtick doubled), and the few literals the compiler writes itself. */
import { checkSqlName, graphqlName, type TableRef } from '../../../../core/sdk/index.js';

/** Names holding NUL or the compiler's marker characters are refused, not escaped. */
export const checkName = checkSqlName;

export function quoteIdent(name: string): string {
  checkName(name);
  return '`' + name.replace(/`/g, '``') + '`';
}

export const quoteTable = (t: TableRef): string => quoteIdent(t.schema) + '.' + quoteIdent(t.name);

/** A string literal for names the compiler writes as JSON keys (GraphQL aliases and type names). */
export const nameLiteral = (name: string): string => `'${graphqlName(name)}'`;
