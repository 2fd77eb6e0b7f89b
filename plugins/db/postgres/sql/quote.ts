/**
 * Quoting of everything that reaches SQL text as text: identifiers, string literals and type
 * names. Nothing a client sends is ever quoted into SQL (values are parameters); these guard
 * names that come from metadata and GraphQL aliases.
 */

/** A double-quoted identifier; embedded quotes doubled, so any name is safe. */
export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** `"schema"."name"`. */
export function quoteTable(t: { schema: string; name: string }): string {
  return quoteIdent(t.schema) + '.' + quoteIdent(t.name);
}

/**
 * A string literal. Strings with a backslash use the E'' form so the meaning does not depend on
 * the server's `standard_conforming_strings` setting.
 */
export function quoteLiteral(s: string): string {
  const body = s.replace(/'/g, "''");
  if (s.includes('\\')) return "E'" + body.replace(/\\/g, '\\\\') + "'";
  return "'" + body + "'";
}

// Built-in names are lowercase words, possibly several (`double precision`) with a modifier;
// those must stay unquoted, because quoting turns `integer` or `"char"` into something else.
const PLAIN_TYPE = /^[a-z_][a-z0-9_]*(?: [a-z_][a-z0-9_]*)*(?:\(\d+(?:, ?\d+)?\))?$/;
const ARRAY_SUFFIX = /(\[\])+$/;

/**
 * A type name for a cast. Catalog names (`int4`, `_text`, `timestamp with time zone`) pass
 * as they are; anything else (mixed case, a schema prefix, odd characters) is quoted as an
 * identifier, split at the first dot into schema and name.
 */
export function sqlType(type: string): string {
  const suffix = ARRAY_SUFFIX.exec(type)?.[0] ?? '';
  const base = suffix === '' ? type : type.slice(0, type.length - suffix.length);
  if (PLAIN_TYPE.test(base)) return base + suffix;
  if (/^"(?:[^"]|"")+"(?:\."(?:[^"]|"")+")?$/.test(base)) return base + suffix;
  const dot = base.indexOf('.');
  const quoted = dot > 0 ? quoteIdent(base.slice(0, dot)) + '.' + quoteIdent(base.slice(dot + 1)) : quoteIdent(base);
  return quoted + suffix;
}

/** PostgreSQL truncates identifiers longer than this many bytes (NAMEDATALEN - 1). */
export const MAX_IDENT_BYTES = 63;

export function fitsIdentifier(name: string): boolean {
  // Byte length, not character count: the limit is in bytes of the server encoding (UTF-8).
  return name.length <= MAX_IDENT_BYTES / 3 || Buffer.byteLength(name, 'utf8') <= MAX_IDENT_BYTES;
}
