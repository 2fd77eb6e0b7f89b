/**
 * The small JSON path language of `claims_namespace_path` and `claims_map`: an optional `$`, then
 * `.name` (letters, digits, `_`, `-`), `['any name']` / `["any name"]` and `[index]` steps.
 * `$` alone is the whole claims object.
 */

export type JsonPathStep = string | number;
export type JsonPath = readonly JsonPathStep[];

export class JsonPathError extends Error {}

const NAME = /^[A-Za-z0-9_-]+/;

export function parseJsonPath(text: string): JsonPath {
  const steps: JsonPathStep[] = [];
  let i = text.startsWith('$') ? 1 : 0;
  const invalid = (): JsonPathError =>
    new JsonPathError(
      `${text}. Accept letters, digits, underscore (_) or hyphen (-) only. ` +
        'Use quotes enclosed in bracket (["..."]) if there is any other character in the name',
    );
  if (text.length === 0) throw invalid();
  while (i < text.length) {
    const c = text[i];
    if (c === '[') {
      const close = parseBracket(text, i);
      if (!close) throw invalid();
      steps.push(close.step);
      i = close.end;
      continue;
    }
    // The leading dot is optional only for the first step of a path written without `$`.
    if (c === '.') i++;
    else if (i !== 0) throw invalid();
    const m = NAME.exec(text.slice(i));
    if (!m) throw invalid();
    steps.push(m[0]);
    i += m[0].length;
  }
  return steps;
}

function parseBracket(text: string, open: number): { step: JsonPathStep; end: number } | undefined {
  const rest = text.slice(open + 1);
  const index = /^(\d+)\]/.exec(rest);
  if (index) return { step: Number(index[1]), end: open + 1 + index[0].length };
  const quote = rest[0];
  if (quote !== "'" && quote !== '"') return undefined;
  let name = '';
  for (let j = 1; j < rest.length; j++) {
    const ch = rest[j] as string;
    if (ch === '\\' && j + 1 < rest.length) {
      name += rest[++j];
      continue;
    }
    if (ch === quote) {
      if (rest[j + 1] !== ']') return undefined;
      return { step: name, end: open + 1 + j + 2 };
    }
    name += ch;
  }
  return undefined;
}

/** The value at `path`, or undefined when any step is missing. */
export function readJsonPath(value: unknown, path: JsonPath): unknown {
  let current: unknown = value;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(current) || step >= current.length) return undefined;
      current = current[step];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
      if (!Object.prototype.hasOwnProperty.call(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

/** `$.a['b c'][0]`: the form error messages name a path in. */
export function formatJsonPath(path: JsonPath): string {
  return (
    '$' +
    path
      .map((s) =>
        typeof s === 'number' ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `['${s.replace(/'/g, "\\'")}']`,
      )
      .join('')
  );
}
