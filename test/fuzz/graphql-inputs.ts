/**
 * fast-check arbitraries for the GraphQL → SQL fuzzing: names and values full of quotes,
 * backslashes, NUL bytes, unicode and huge numbers; `where`, `order_by`, `distinct_on`,
 * `limit`/`offset` and mutation inputs for the `item` table of test/helpers/hardening.ts, sometimes
 * well-typed and sometimes not (a refusal must then be a coded error). Rendered either inline as
 * GraphQL literals or as variables, since the two take different paths through the planner.
 */
import fc from 'fast-check';

/** Strings chosen to break quoting: SQL and GraphQL delimiters, escapes, NUL, bidi and astral characters. */
export const NASTY_STRINGS = [
  "'", "''", '"', '\\', '\\\\', '\u0000', 'a\u0000b', "'; DROP TABLE item; --", '$1', '$$', '%', '_', '\\x00',
  '🙂', 'ß', '\u202e', '\ud800', 'Robert"); --', '*/', '/*', '\n', '\r\n', '\t', 'E\'\\\\\'', '\\u0000', '${x}',
] as const;

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 8 }),
  fc.tuple(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'grapheme', maxLength: 6 })).map(([a, b]) => a + b),
);

/** Numbers as GraphQL literal text: huge, tiny, negative zero, exponents past double range. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Number.isInteger(d) ? d.toFixed(1) : String(d)).replace(/^(-?)(\d)/, '$1$2')),
  fc.constantFrom('0', '-0', '1e308', '1e400', '-1e400', '9007199254740993', '18446744073709551616', '0.000000000000000000000000001', '2147483648', '-2147483649'),
);

/** A JSON value for jsonb columns and variables, nasty strings included. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    nastyString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(nastyString, tie('v'), { maxKeys: 3 }),
  ),
})).v;

/** A value in GraphQL literal syntax or as a JSON variable part; `raw` is literal text. */
export type GqlValue = { raw: string } | { list: GqlValue[] } | { obj: Array<[string, GqlValue]> } | { json: unknown };

export function printGql(v: GqlValue): string {
  if ('raw' in v) return v.raw;
  if ('list' in v) return `[${v.list.map(printGql).join(', ')}]`;
  if ('obj' in v) return `{${v.obj.map(([k, x]) => `${k}: ${printGql(x)}`).join(', ')}}`;
  return printJsonAsGql(v.json);
}

/** A JSON value as a GraphQL literal (strings with JSON escapes, which GraphQL shares). */
export function printJsonAsGql(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(printJsonAsGql).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .filter(([k]) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(k))
    .map(([k, x]) => `${k}: ${printJsonAsGql(x)}`)
    .join(', ')}}`;
}

/** The JSON form of a value for variables; raw literals become their JS value where one exists. */
export function toJson(v: GqlValue): unknown {
  if ('raw' in v) {
    if (v.raw === 'null' || v.raw === 'true' || v.raw === 'false') return JSON.parse(v.raw);
    if (/^[A-Za-z_]\w*$/.test(v.raw)) return v.raw; // enum value
    const n = Number(v.raw);
    return Number.isFinite(n) ? n : v.raw;
  }
  if ('list' in v) return v.list.map(toJson);
  if ('obj' in v) return Object.fromEntries(v.obj.map(([k, x]) => [k, toJson(x)]));
  return v.json;
}

const str = nastyString.map((s): GqlValue => ({ json: s }));
const num = numberText.map((n): GqlValue => ({ raw: n }));
const anyScalar: fc.Arbitrary<GqlValue> = fc.oneof(str, num, fc.constantFrom<GqlValue>({ raw: 'null' }, { raw: 'true' }));

/** Columns of `item` the user role may read, and the one it may not (`token`). */
const READABLE = ['id', 'name', 'owner_id', 'parent_id', 'price', 'tags'] as const;
const COLUMNS = [...READABLE, 'token'] as const;

const valueFor = (column: string): fc.Arbitrary<GqlValue> => {
  switch (column) {
    case 'name':
    case 'token':
      return fc.oneof({ weight: 4, arbitrary: str }, { weight: 1, arbitrary: anyScalar });
    case 'tags':
      return fc.oneof({ weight: 4, arbitrary: jsonValue.map((j): GqlValue => ({ json: j })) }, { weight: 1, arbitrary: anyScalar });
    case 'price':
      return fc.oneof({ weight: 4, arbitrary: num }, { weight: 1, arbitrary: anyScalar });
    default:
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: -5, max: 40 }).map((n): GqlValue => ({ raw: String(n) })) },
        { weight: 1, arbitrary: num },
        { weight: 1, arbitrary: anyScalar },
      );
  }
};

const COMPARISONS = ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_like', '_nlike', '_ilike', '_similar', '_regex', '_iregex'] as const;
const LIST_COMPARISONS = ['_in', '_nin'] as const;
const JSON_OPS = ['_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all'] as const;

const comparison = (column: string): fc.Arbitrary<GqlValue> =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...COMPARISONS), valueFor(column)).map(([op, v]): GqlValue => ({ obj: [[op, v]] })),
    fc.tuple(fc.constantFrom(...LIST_COMPARISONS), fc.array(valueFor(column), { maxLength: 4 })).map(([op, vs]): GqlValue => ({ obj: [[op, { list: vs }]] })),
    fc.boolean().map((b): GqlValue => ({ obj: [['_is_null', { raw: String(b) }]] })),
    ...(column === 'tags'
      ? [fc.tuple(fc.constantFrom(...JSON_OPS), fc.oneof(valueFor('tags'), fc.array(str, { maxLength: 3 }).map((l): GqlValue => ({ list: l })))).map(([op, v]): GqlValue => ({ obj: [[op, v]] }))]
      : []),
  );

/** A bool_exp over `item`; `allowForbidden` lets `token` appear (which the user role must not see). */
export function boolExp(allowForbidden: boolean): fc.Arbitrary<GqlValue> {
  const columns = allowForbidden ? COLUMNS : READABLE;
  return fc.letrec<{ exp: GqlValue }>((tie) => ({
    exp: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...columns).chain((c) => comparison(c).map((cmp): GqlValue => ({ obj: [[c, cmp]] }))),
      fc.array(tie('exp'), { maxLength: 3 }).map((l): GqlValue => ({ obj: [['_and', { list: l }]] })),
      fc.array(tie('exp'), { maxLength: 3 }).map((l): GqlValue => ({ obj: [['_or', { list: l }]] })),
      tie('exp').map((e): GqlValue => ({ obj: [['_not', e]] })),
      tie('exp').map((e): GqlValue => ({ obj: [['parent', e]] })),
      fc.constant<GqlValue>({ obj: [] }),
    ),
  })).exp;
}

const DIRECTIONS = ['asc', 'desc', 'asc_nulls_first', 'asc_nulls_last', 'desc_nulls_first', 'desc_nulls_last'];

export const orderBy: fc.Arbitrary<GqlValue> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...READABLE), fc.constantFrom(...DIRECTIONS)).map(([c, d]): GqlValue => ({ obj: [[c, { raw: d }]] })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...READABLE), fc.constantFrom(...DIRECTIONS)).map(([c, d]): GqlValue => ({ obj: [['parent', { obj: [[c, { raw: d }]] }]] })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...COLUMNS), nastyString).map(([c, s]): GqlValue => ({ obj: [[c, { json: s }]] })) },
  ),
  { maxLength: 3 },
).map((l): GqlValue => ({ list: l }));

export const distinctOn: fc.Arbitrary<GqlValue> = fc
  .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...READABLE).map((c): GqlValue => ({ raw: c })) }, { weight: 1, arbitrary: str }), { minLength: 1, maxLength: 3 })
  .map((l): GqlValue => ({ list: l }));

export const limitValue: fc.Arbitrary<GqlValue> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -2, max: 50 }).map((n): GqlValue => ({ raw: String(n) })) },
  { weight: 1, arbitrary: num },
  { weight: 1, arbitrary: str },
);

export interface SelectCase {
  where?: GqlValue;
  orderBy?: GqlValue;
  distinctOn?: GqlValue;
  limit?: GqlValue;
  offset?: GqlValue;
  /** Select `token` too (refused for the user role). */
  selectForbidden: boolean;
  /** Pass the arguments as variables instead of inline literals. */
  asVariables: boolean;
  aggregate: boolean;
}

export const selectCase = (allowForbidden: boolean): fc.Arbitrary<SelectCase> =>
  fc.record(
    {
      where: boolExp(allowForbidden),
      orderBy,
      distinctOn,
      limit: limitValue,
      offset: limitValue,
      selectForbidden: allowForbidden ? fc.boolean() : fc.constant(false),
      asVariables: fc.boolean(),
      aggregate: fc.boolean(),
    },
    { requiredKeys: ['selectForbidden', 'asVariables', 'aggregate'] },
  );

const ARG_TYPES: Record<string, string> = {
  where: 'item_bool_exp',
  order_by: '[item_order_by!]',
  distinct_on: '[item_select_column!]',
  limit: 'Int',
  offset: 'Int',
};

/** The GraphQL request for a select case. */
export function selectRequest(c: SelectCase): { query: string; variables: Record<string, unknown> } {
  const args: Array<[string, GqlValue]> = [];
  if (c.where) args.push(['where', c.where]);
  if (c.orderBy) args.push(['order_by', c.orderBy]);
  if (c.distinctOn) args.push(['distinct_on', c.distinctOn]);
  if (c.limit) args.push(['limit', c.limit]);
  if (c.offset) args.push(['offset', c.offset]);
  const fields = `id owner_id name price tags${c.selectForbidden ? ' token' : ''} parent { id owner_id }`;
  const selection = c.aggregate ? `aggregate { count } nodes { ${fields} }` : fields;
  const root = c.aggregate ? 'item_aggregate' : 'item';
  if (!c.asVariables) {
    const argText = args.length ? `(${args.map(([k, v]) => `${k}: ${printGql(v)}`).join(', ')})` : '';
    return { query: `{ ${root}${argText} { ${selection} } }`, variables: {} };
  }
  const defs = args.map(([k]) => `$${k}: ${ARG_TYPES[k]}`).join(', ');
  const argText = args.length ? `(${args.map(([k]) => `${k}: $${k}`).join(', ')})` : '';
  return {
    query: `query${defs ? `(${defs})` : ''} { ${root}${argText} { ${selection} } }`,
    variables: Object.fromEntries(args.map(([k, v]) => [k, toJson(v)])),
  };
}

export type MutationCase =
  | { kind: 'update'; where: GqlValue; set: Array<[string, GqlValue]>; asVariables: boolean }
  | { kind: 'delete'; where: GqlValue; asVariables: boolean }
  | { kind: 'insert'; object: Array<[string, GqlValue]>; asVariables: boolean };

const settable = (columns: readonly string[]) =>
  fc.uniqueArray(fc.constantFrom(...columns), { minLength: 1, maxLength: 3 }).chain((cols) =>
    fc.tuple(...cols.map((c) => valueFor(c).map((v): [string, GqlValue] => [c, v]))),
  );

export const mutationCase: fc.Arbitrary<MutationCase> = fc.oneof(
  fc.record({ kind: fc.constant('update' as const), where: boolExp(false), set: settable(['name', 'price', 'tags', 'owner_id']), asVariables: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), where: boolExp(false), asVariables: fc.boolean() }),
  fc.record({ kind: fc.constant('insert' as const), object: settable(['name', 'price', 'tags', 'parent_id', 'owner_id']), asVariables: fc.boolean() }),
);

export function mutationRequest(c: MutationCase): { query: string; variables: Record<string, unknown> } {
  const returning = 'affected_rows returning { id owner_id }';
  if (c.kind === 'insert') {
    if (c.asVariables) {
      return {
        query: `mutation($o: item_insert_input!) { insert_item(objects: [$o]) { ${returning} } }`,
        variables: { o: Object.fromEntries(c.object.map(([k, v]) => [k, toJson(v)])) },
      };
    }
    return { query: `mutation { insert_item(objects: [${printGql({ obj: c.object })}]) { ${returning} } }`, variables: {} };
  }
  const field = c.kind === 'update' ? 'update_item' : 'delete_item';
  if (c.asVariables) {
    const set = c.kind === 'update' ? ', _set: $s' : '';
    const setDef = c.kind === 'update' ? ', $s: item_set_input' : '';
    const variables: Record<string, unknown> = { w: toJson(c.where) };
    if (c.kind === 'update') variables['s'] = Object.fromEntries(c.set.map(([k, v]) => [k, toJson(v)]));
    return { query: `mutation($w: item_bool_exp!${setDef}) { ${field}(where: $w${set}) { ${returning} } }`, variables };
  }
  const set = c.kind === 'update' ? `, _set: ${printGql({ obj: c.set })}` : '';
  return { query: `mutation { ${field}(where: ${printGql(c.where)}${set}) { ${returning} } }`, variables: {} };
}
