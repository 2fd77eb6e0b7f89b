/**
 * GraphQL literals for values typed into the data pages. The browse query is built as text
 * because its argument types are named per table and source customization; every value is
 * written through here, so user text only ever becomes a quoted GraphQL string or a checked
 * number/boolean, never query syntax.
 */
/** The part of a database column a value is typed from (api/catalog.ts's DbColumn has it). */
export interface TypedColumn {
  name: string;
  type: string;
}

const NUMERIC = /^(smallint|integer|bigint|real|double precision|numeric|decimal)/;

/** A typed value from the text a user entered for a column. */
export function columnValue(column: TypedColumn | undefined, text: string): unknown {
  const type = column?.type ?? 'text';
  if (/^(boolean)$/.test(type)) {
    if (text === 'true' || text === 'false') return text === 'true';
    throw new Error(`${column?.name}: expected true or false`);
  }
  if (/^(smallint|integer|bigint)$/.test(type)) {
    if (!/^-?\d+$/.test(text.trim())) throw new Error(`${column?.name}: expected an integer`);
    return Number(text.trim());
  }
  if (/^(real|double precision)$/.test(type)) {
    const n = Number(text);
    if (text.trim() === '' || Number.isNaN(n)) throw new Error(`${column?.name}: expected a number`);
    return n;
  }
  if (/^jsonb?$/.test(type)) return { __json: JSON.parse(text) as unknown };
  // numeric and everything else travel as strings; the engine's scalars parse them.
  if (NUMERIC.test(type)) return text.trim();
  return text;
}

/** `{__enum: 'asc'}` writes an enum value; `{__json: v}` a JSON scalar value. */
export function toLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(toLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('__enum' in obj) {
      const e = String(obj['__enum']);
      if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(e)) throw new Error(`bad enum value ${e}`);
      return e;
    }
    if ('__json' in obj) return jsonLiteral(obj['__json']);
    return `{${Object.entries(obj)
      .map(([k, v]) => `${fieldName(k)}: ${toLiteral(v)}`)
      .join(', ')}}`;
  }
  throw new Error(`cannot write ${typeof value}`);
}

/** A JSON value as a GraphQL literal of a JSON scalar (objects keep their keys as names). */
function jsonLiteral(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${fieldName(k)}: ${jsonLiteral(v)}`)
      .join(', ')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(jsonLiteral).join(', ')}]`;
  return toLiteral(value);
}

export function fieldName(name: string): string {
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) throw new Error(`${name} is not a GraphQL name`);
  return name;
}
