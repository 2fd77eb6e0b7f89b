/**
 * JSON whose integers beyond 2^53 survive a parse and a serialise. `JSON.parse` rounds them
 * (a `bigint` id 9007199254740993 would come back as ...992 and no longer match its row), and
 * Node 20 has neither `JSON.rawJSON` nor the reviver's source text. So, outside strings, every
 * integer token too large for a double is read as a marked string, and written back as the bare
 * digits. Texts without a run of 16 digits (nearly all) are parsed by `JSON.parse` alone.
 */

/** The marked form of a big integer inside a parsed value: a string no client sends. */
const MARK = '\u0000svc-int:';
const MARKED = /"\\u0000svc-int:(-?\d+)"/g;
const LONG_DIGITS = /\d{16}/;

/** True for an integer token that a double cannot hold exactly. */
function unsafe(token: string): boolean {
  return !/[.eE]/.test(token) && !Number.isSafeInteger(Number(token));
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

/** Serialises a value from `parseLossless`, writing big integers back as bare digits. */
export function stringifyLossless(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000svc-int:') ? text.replace(MARKED, '$1') : text;
}

/** A big integer from `parseLossless` as its digits (a string); any other value unchanged. */
export function unmarkLossless(v: unknown): unknown {
  return typeof v === 'string' && v.startsWith(MARK) ? v.slice(MARK.length) : v;
}

export function isLosslessInteger(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith(MARK);
}
