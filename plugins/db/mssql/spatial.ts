/**
 * SQL Server's spatial types as the reference engine offers them for this kind: `geometry` and
 * `geography` columns read as WKT text (select.ts) and compared with the `_st_*` operators, whose
 * value is WKT too, read in the column's own SRID. Geography has no STCrosses or STTouches, so
 * it has fewer operators; neither type is ordered.
 */
import type { KindOperatorSpec, TypeOperators } from '../../../core/sdk/index.js';

/** Operator → the CLR method it calls on the column. */
const METHODS: Readonly<Record<string, string>> = {
  _st_contains: 'STContains',
  _st_crosses: 'STCrosses',
  _st_equals: 'STEquals',
  _st_intersects: 'STIntersects',
  _st_overlaps: 'STOverlaps',
  _st_touches: 'STTouches',
  _st_within: 'STWithin',
};

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  _st_contains: 'does the column contain the given value',
  _st_crosses: 'does the column cross the given value',
  _st_equals: 'is the column equal to given value (directionality is ignored)',
  _st_intersects: 'does the column spatially intersect the given value',
  _st_overlaps: "does the column 'spatially overlap' (intersect but not completely contain) the given value",
  _st_touches: 'does the column have atleast one point in common with the given value',
  _st_within: 'is the column contained in the given value',
};

const operators = (type: string, names: readonly string[]): TypeOperators => ({
  ordering: false,
  casts: [],
  operators: names.map((name): KindOperatorSpec => ({ name, description: DESCRIPTIONS[name]!.replace('value', `${type} value`), input: { kind: 'value', dbType: type, graphqlType: type } })),
});

const BY_TYPE: ReadonlyMap<string, TypeOperators> = new Map([
  ['geometry', operators('geometry', Object.keys(METHODS))],
  ['geography', operators('geography', ['_st_contains', '_st_equals', '_st_intersects', '_st_overlaps', '_st_within'])],
]);

export function spatialTypeOperators(type: string): TypeOperators | undefined {
  return BY_TYPE.get(type);
}

/**
 * `(col.STIntersects(geography::STGeomFromText(@p, col.STSrid)) = 1)`, or undefined for an
 * operator this kind does not define. `type` is the column's type (the value's constructor).
 */
export function spatialOperatorSql(op: string, lhs: string, type: string, value: string): string | undefined {
  const method = METHODS[op];
  if (method === undefined || (type !== 'geometry' && type !== 'geography')) return undefined;
  if (!BY_TYPE.get(type)!.operators.some((o) => o.name === op)) return undefined;
  return `(${spatialCallSql(method, lhs, type, value)} = 1)`;
}

/** `col.<method>(<type>::STGeomFromText(value, col.STSrid))`: 1, 0 or NULL. */
export function spatialCallSql(method: string, lhs: string, type: 'geometry' | 'geography', value: string): string {
  return `${lhs}.${method}(${type}::STGeomFromText(${value}, ${lhs}.STSrid))`;
}
