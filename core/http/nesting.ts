/**
 * Nesting depth of JSON and GraphQL text, measured by one linear scan without recursion, so that a
 * document nested thousands of levels deep is refused with a coded error before any recursive
 * parser, validator or planner can overflow the stack. Text shorter than the limit cannot exceed
 * it (each level takes at least one character), so small requests, the common case, skip the scan.
 */

/** Deepest JSON nesting accepted in a request body (variables, metadata documents). */
export const MAX_JSON_DEPTH = 512;
/** Deepest bracket nesting (`{`, `(`, `[`) accepted in a GraphQL document. */
export const MAX_GRAPHQL_DEPTH = 256;
/** Most lexical tokens accepted in a GraphQL document (graphql-js `maxTokens`). */
export const MAX_GRAPHQL_TOKENS = 50_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const NEWLINE = 0x0a;
const CR = 0x0d;
const OPENERS = new Set([0x7b, 0x5b, 0x28]); // { [ (
const CLOSERS = new Set([0x7d, 0x5d, 0x29]); // } ] )

/** Whether JSON text (bytes) nests arrays and objects deeper than `max`. */
export function jsonDeeperThan(raw: Uint8Array, max: number): boolean {
  if (raw.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Whether a GraphQL document nests brackets deeper than `max` (strings and comments skipped). */
export function graphqlDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === HASH) {
      while (i < text.length && text.charCodeAt(i) !== NEWLINE && text.charCodeAt(i) !== CR) i++;
    } else if (c === QUOTE) {
      if (text.startsWith('"""', i)) {
        const end = blockStringEnd(text, i + 3);
        if (end < 0) return false; // unterminated: the parser reports it
        i = end + 2;
      } else {
        i++;
        while (i < text.length && text.charCodeAt(i) !== QUOTE && text.charCodeAt(i) !== NEWLINE) {
          if (text.charCodeAt(i) === BACKSLASH) i++;
          i++;
        }
      }
    } else if (OPENERS.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(c)) {
      depth--;
    }
  }
  return false;
}

/** Index of the closing `"""` of a block string whose body starts at `from` (`\"""` escapes one). */
function blockStringEnd(text: string, from: number): number {
  let i = from;
  for (;;) {
    const at = text.indexOf('"""', i);
    if (at < 0) return -1;
    if (text.charCodeAt(at - 1) !== BACKSLASH) return at;
    i = at + 3;
  }
}
