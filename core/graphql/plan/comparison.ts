/**
 * One column's comparison object (`{_eq: 1, _gt: 0}`) → IR. Shared by `where` arguments and
 * permission filters; the two differ only in how operator names are spelled and how leaves are
 * read (see `ComparisonMode`).
 */
import type { BoolExpIR, ComparisonOp, ScalarExprIR } from '../ir.js';
import { and } from './bool.js';
import { objectEntries, leafValue, isNull, toJson, validationError, type Input, type LeafSpec, type MaybeCtx } from './input.js';
import type { ScalarInfo } from '../scalars.js';
import { IR_SCALARS } from '../scalars.js';
import type { Naming } from '../schema/naming.js';

/** What a comparison needs to know about the compared column or expression. */
export interface ComparedColumn {
  expr: ScalarExprIR;
  /** Database type of the column (`_text` for arrays). */
  type: string;
  info: ScalarInfo;
  graphqlType: string;
  enumValues?: ReadonlyMap<string, string>;
}

export interface ComparisonMode {
  /** Canonical operator (`_is_null`) of a written key, or undefined when unknown. */
  operator(key: string): string | undefined;
  /** GraphQL-side spelling of a scalar name in `_cast` (`String`). */
  castTarget(key: string): string | undefined;
  permission: boolean;
  /** Name of the comparison type, for messages. */
  typeName(column: ComparedColumn): string;
}

const VALUE_OPS = new Set<ComparisonOp>([
  '_eq', '_neq', '_gt', '_lt', '_gte', '_lte',
  '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar',
  '_regex', '_nregex', '_iregex', '_niregex', '_contains', '_contained_in',
]);
const COLUMN_OPS: Readonly<Record<string, ComparisonOp>> = {
  _ceq: '_ceq', _cneq: '_cneq', _cgt: '_cgt', _clt: '_clt', _cgte: '_cgte', _clte: '_clte',
};

export function buildComparison(
  column: ComparedColumn,
  input: Input,
  ctx: MaybeCtx,
  mode: ComparisonMode,
  path: string,
): BoolExpIR {
  const typeName = mode.typeName(column);
  const items: BoolExpIR[] = [];
  for (const [key, value] of objectEntries(input, ctx, path, typeName)) {
    const at = `${path}.${key}`;
    const op = mode.operator(key);
    if (op === undefined) throw validationError(`field '${key}' not found in type: '${typeName}'`, at);
    items.push(buildOperator(column, op, value, ctx, mode, at));
  }
  return and(items);
}

function buildOperator(
  column: ComparedColumn,
  op: string,
  value: Input,
  ctx: MaybeCtx,
  mode: ComparisonMode,
  path: string,
): BoolExpIR {
  const base: LeafSpec = {
    dbType: column.type,
    graphqlType: column.graphqlType,
    keepsNumericText: column.info.keepsNumericText,
    ...(column.enumValues ? { enumValues: column.enumValues } : {}),
    ...(mode.permission ? { sessionVariables: true, nullable: true } : {}),
  };
  const compare = (o: ComparisonOp, spec: LeafSpec): BoolExpIR => ({
    kind: 'compare',
    lhs: column.expr,
    op: o,
    rhs: leafValue(value, ctx, spec, path),
  });

  if (op === '_is_null') return compare('_is_null', { ...base, dbType: 'bool', graphqlType: 'Boolean', enumValues: undefined });
  if (op === '_in' || op === '_nin') return compare(op, { ...base, array: true });
  if (op === '_has_key') return compare(op, { ...base, dbType: 'text', graphqlType: 'String', nullable: true });
  if (op === '_has_keys_any' || op === '_has_keys_all') {
    return compare(op, { ...base, dbType: 'text', graphqlType: 'String', array: true });
  }
  if (op === '_cast') return buildCast(column, value, ctx, mode, path);
  const columnOp = COLUMN_OPS[op];
  if (columnOp) return buildColumnComparison(column, columnOp, value, ctx, path);
  if (VALUE_OPS.has(op as ComparisonOp)) return compare(op as ComparisonOp, base);
  throw validationError(`unknown operator '${op}'`, path);
}

/** `_cast: {String: {...}}`: compare the column cast to another type. */
function buildCast(column: ComparedColumn, value: Input, ctx: MaybeCtx, mode: ComparisonMode, path: string): BoolExpIR {
  const items: BoolExpIR[] = [];
  for (const [key, ops] of objectEntries(value, ctx, path, `${column.graphqlType}_cast_exp`)) {
    const target = mode.castTarget(key);
    if (target !== 'String') throw validationError(`field '${key}' not found in type: '${column.graphqlType}_cast_exp'`, `${path}.${key}`);
    const cast: ComparedColumn = {
      expr: { kind: 'cast', expr: column.expr, toType: 'text' },
      type: 'text',
      info: IR_SCALARS.text,
      graphqlType: 'String',
    };
    items.push(buildComparison(cast, ops, ctx, mode, `${path}.${key}`));
  }
  return and(items);
}

/** `_ceq: "other_column"` or `_ceq: ["$", "root_column"]` (permission filters only). */
function buildColumnComparison(
  column: ComparedColumn,
  op: ComparisonOp,
  value: Input,
  ctx: MaybeCtx,
  path: string,
): BoolExpIR {
  if (isNull(value, ctx)) throw validationError('expected a column name', path);
  const raw = toJson(value, ctx);
  let root = false;
  let name: unknown = raw;
  if (Array.isArray(raw)) {
    root = raw[0] === '$';
    name = raw[raw.length - 1];
  }
  if (typeof name !== 'string') throw validationError('expected a column name', path);
  return { kind: 'compareColumn', lhs: column.expr, op, rhs: { column: name, root } };
}

const CANONICAL_OPS = [
  '_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null',
  '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar',
  '_regex', '_nregex', '_iregex', '_niregex',
  '_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all', '_cast',
];

const graphqlModes = new Map<string, ComparisonMode>();

/** Operators as the GraphQL schema of a naming convention spells them. */
export function graphqlComparisonMode(naming: Naming): ComparisonMode {
  const cached = graphqlModes.get(naming.convention);
  if (cached) return cached;
  const byName = new Map(CANONICAL_OPS.map((op) => [naming.field(op), op] as const));
  const mode: ComparisonMode = {
    operator: (key) => byName.get(key),
    castTarget: (key) => (key === 'String' ? 'String' : undefined),
    permission: false,
    typeName: (c) => `${c.graphqlType}_comparison_exp`,
  };
  graphqlModes.set(naming.convention, mode);
  return mode;
}

/** Older spellings the reference still reads in permissions. */
const PERMISSION_ALIASES: Readonly<Record<string, string>> = { _ne: '_neq', _cne: '_cneq' };

/** Operators as permission filters spell them: `_eq` or the legacy `$eq`, plus `_ceq`-style ones. */
export const permissionComparisonMode: ComparisonMode = {
  operator: (key) => {
    const written = key.startsWith('$') ? `_${key.slice(1)}` : key;
    const k = PERMISSION_ALIASES[written] ?? written;
    return CANONICAL_OPS.includes(k) || k in COLUMN_OPS ? k : undefined;
  },
  castTarget: (key) => (key === 'String' || key.toLowerCase() === 'text' ? 'String' : undefined),
  permission: true,
  typeName: (c) => `${c.graphqlType}_comparison_exp`,
};
