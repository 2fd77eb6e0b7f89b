/** Identifiers in brackets (a `]` doubled), and the few literals the compiler writes itself. */
import { EngineError, type TableRef } from '../../../../core/sdk/index.js';

/** Names holding NUL or the compiler's marker characters (template.ts) are refused, not escaped. */
export function checkName(name: string): string {
  if (name.includes('\u0000') || name.includes('\u0001') || name.includes('\u0002')) throw new EngineError('validation-failed', `the name ${JSON.stringify(name)} holds a control character`);
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
export function nameLiteral(name: string): string {
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) throw new EngineError('unexpected', `not a GraphQL name: ${JSON.stringify(name)}`);
  return `N'${name}'`;
}

/** A JSON key as a FOR JSON column alias: a GraphQL name, in brackets (a dot would nest it). */
export function jsonKey(name: string): string {
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) throw new EngineError('unexpected', `not a GraphQL name: ${JSON.stringify(name)}`);
  return `[${name}]`;
}
