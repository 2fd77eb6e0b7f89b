/**
 * The explain API for `pg_` sources: a compiled statement with its parameters written in as
 * literals (what an admin can paste into psql), and PostgreSQL's plan for that text. Explaining
 * the literal text gives the plan for these values, as the reference engine shows it.
 */
import type { PgSourcePool } from './pool.js';
import { quoteLiteral } from './sql/quote.js';
import { queryEngineError } from './query-errors.js';

/** `params[0]` replaces `$1`, and so on; every placeholder outside quotes is replaced. */
export function renderWithLiterals(text: string, params: readonly unknown[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = quotedEnd(text, i, c, i > 0 && (text[i - 1] === 'E' || text[i - 1] === 'e'));
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === '$' && isDigit(text.charCodeAt(i + 1))) {
      let j = i + 1;
      while (isDigit(text.charCodeAt(j))) j++;
      const n = Number(text.slice(i + 1, j));
      if (n < 1 || n > params.length) throw new Error(`statement refers to $${n}, but has ${params.length} parameters`);
      out += sqlLiteral(params[n - 1]);
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** Index just past the closing quote; doubled quotes (and, in E'' strings, backslashes) escape. */
function quotedEnd(text: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (backslashEscapes && c === '\\') {
      i += 2;
      continue;
    }
    if (c === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return text.length;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/**
 * A driver parameter value as an untyped SQL literal. Every placeholder the compiler writes
 * carries a cast (`$2::int4`), so a quoted literal takes the placeholder's type, as the driver's
 * text-format parameters do.
 */
export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return quoteLiteral(textOf(v));
}

/** The text node-postgres would send for a value (arrays as array literals, objects as JSON). */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return arrayLiteral(v);
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return '\\x' + v.toString('hex');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function arrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((x) => {
    if (x === null || x === undefined) return 'NULL';
    if (Array.isArray(x)) return arrayLiteral(x);
    return '"' + textOf(x).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  });
  return '{' + parts.join(',') + '}';
}

/** `params` are the driver values, session JSON first, exactly as the read path sends them. */
export async function explainStatement(
  pool: PgSourcePool,
  text: string,
  params: readonly unknown[],
  secrets: readonly string[],
): Promise<{ sql: string; plan: string[] }> {
  const sql = renderWithLiterals(text, params);
  try {
    const result = await pool.query<{ 'QUERY PLAN': string }>('EXPLAIN ' + sql);
    return { sql, plan: result.rows.map((r) => r['QUERY PLAN']) };
  } catch (e) {
    throw queryEngineError(e, sql, secrets);
  }
}
