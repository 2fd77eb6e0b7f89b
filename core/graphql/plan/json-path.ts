/**
 * The `path` argument of json/jsonb columns (`meta(path: "$.langs[0]")`), read as the reference
 * engine reads it (`Data.Parser.JSONPath`): an optional `$`, then keys (`key`, `.key`: a letter or
 * `_`, then letters, digits, `-`, `_`) and bracketed elements (`[0]`, `["any key"]`, `['any
 * key']`). `$` alone selects the whole value.
 */
export type JsonPath = Array<string | number>;

/** The argument of json/jsonb column fields selecting a value inside them. */
export const PATH_ARG = 'path';

const NAME = /^[\p{L}_][\p{L}\p{N}_-]*/u;

/** The path's elements, or an error message in the reference's words. */
export function parseJsonPath(text: string): JsonPath | { error: string } {
  const invalid = {
    error: `${text}. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character`,
  };
  if (text === '$') return [];
  let rest = text.startsWith('$') ? text.slice(1) : text;
  const out: JsonPath = [];
  while (rest.length > 0) {
    if (rest.startsWith('[')) {
      const element = bracketElement(rest);
      if (!element) return invalid;
      out.push(element.value);
      rest = rest.slice(element.length);
      continue;
    }
    const body = rest.startsWith('.') ? rest.slice(1) : rest;
    const m = NAME.exec(body);
    if (!m) return invalid;
    out.push(m[0]);
    rest = body.slice(m[0].length);
  }
  return out.length > 0 ? out : invalid;
}

/** `[42]`, `["key"]` (a JSON string) or `['key']`: the element and how many characters it took. */
function bracketElement(text: string): { value: string | number; length: number } | null {
  const digits = /^\[(\d+)\]/.exec(text);
  if (digits) return { value: Number(digits[1]), length: digits[0].length };
  if (text[1] === "'") {
    const end = text.indexOf("']", 2);
    return end < 0 ? null : { value: text.slice(2, end), length: end + 2 };
  }
  if (text[1] === '"') {
    const m = /^\[("(?:[^"\\]|\\.)*")\]/.exec(text);
    if (!m) return null;
    try {
      return { value: JSON.parse(m[1]!) as string, length: m[0].length };
    } catch {
      return null;
    }
  }
  return null;
}
