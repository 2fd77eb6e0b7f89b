/**
 * JSON whose numbers survive a parse and a serialise digit for digit. `JSON.parse` rounds
 * integers beyond 2^53 (a `bigint` id 9007199254740993 would come back as ...992 and no longer
 * match its row) and decimals with more significant digits than a double holds (a `numeric`
 * 12345678901234567.89), and Node 20 has neither `JSON.rawJSON` nor the reviver's source text.
 * So, outside strings, every number token a double may not hold exactly is read as a marked
 * string, and written back as the bare token. Texts without 16 digits in a row (a dot allowed
 * among them) are parsed by `JSON.parse` alone: nearly all.
 */

/** The marked form of a big integer inside a parsed value: a string no client sends. */
const MARK = '\u0000svc-int:';
const MARKED = /"\\u0000svc-int:(-?[\d.eE+-]+)"/g;
const LONG_DIGITS = /\d{16}|[\d.]{17}/;
const INTEGER = /^-?\d+$/;

/**
 * True for a number token a double may not hold exactly: an integer beyond 2^53, or a decimal
 * with more than 15 significant digits (15 always survive a round trip through a double).
 */
function unsafe(token: string): boolean {
  if (INTEGER.test(token)) return !Number.isSafeInteger(Number(token));
  const mantissa = token.replace(/[eE].*$/, '').replace(/[-.]/g, '').replace(/^0+/, '');
  return mantissa.length > 15;
}

/** Parses JSON text, keeping integers beyond 2^53 exact (as marked strings). */
export function parseLossless(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string, escapes included.
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      if (token.length >= 16 && unsafe(token)) {
        out += text.slice(from, i) + JSON.stringify(MARK + token);
        from = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return JSON.parse(out + text.slice(from));
}

/** Serialises a value from `parseLossless`, writing marked numbers back as their bare tokens. */
export function stringifyLossless(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000svc-int:') ? text.replace(MARKED, '$1') : text;
}

/** A marked number from `parseLossless` as its token (a string); any other value unchanged. */
export function unmarkLossless(v: unknown): unknown {
  return typeof v === 'string' && v.startsWith(MARK) ? v.slice(MARK.length) : v;
}

/** A marked number that is an integer (a `bigint` beyond 2^53). */
export function isLosslessInteger(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(MARK) && INTEGER.test(v.slice(MARK.length));
}

/** Any marked number: a big integer or a long decimal. */
export function isLosslessNumber(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(MARK);
}
