/**
 * PostgreSQL extension types the engine knows by name, as the reference engine does
 * (`Backends/Postgres/Instances/Schema.hs`, `Translate/BoolExp.hs`, `Translate/Column.hs`):
 * PostGIS `geometry`, `geography` and `raster`, and ltree's `ltree` (with `lquery` and
 * `ltxtquery` as the types of its patterns).
 *
 * - Filters: each type's extra comparison operators, with the reference's names, descriptions
 *   and input types (`st_d_within_input`, ...), and the SQL each compiles to.
 * - Values: geometry and geography values are GeoJSON in and out (`ST_GeomFromGeoJSON` on every
 *   value sent, `ST_AsGeoJSON(col, 15, 4)` on every column read); raster values are hex WKB.
 */
import type { KindOperatorSpec, TypeOperators } from '../../../core/sdk/index.js';

const value = (dbType: string, graphqlType = dbType, array = false): KindOperatorSpec['input'] =>
  array ? { kind: 'value', dbType, graphqlType, array: true } : { kind: 'value', dbType, graphqlType };

const geometryOp = (name: string, description: string): KindOperatorSpec => ({ name, description, input: value('geometry') });

const ST_D_WITHIN_GEOMETRY: KindOperatorSpec['input'] = {
  kind: 'object',
  typeName: 'st_d_within_input',
  fields: [
    { name: 'distance', dbType: 'float8', graphqlType: 'Float', required: true },
    { name: 'from', dbType: 'geometry', graphqlType: 'geometry', required: true },
  ],
};

const GEOMETRY: TypeOperators = {
  ordering: true,
  operators: [
    geometryOp('_st_contains', 'does the column contain the given geometry value'),
    geometryOp('_st_crosses', 'does the column cross the given geometry value'),
    geometryOp('_st_equals', 'is the column equal to given geometry value (directionality is ignored)'),
    geometryOp('_st_overlaps', "does the column 'spatially overlap' (intersect but not completely contain) the given geometry value"),
    geometryOp('_st_touches', 'does the column have atleast one point in common with the given geometry value'),
    geometryOp('_st_within', 'is the column contained in the given geometry value'),
    geometryOp('_st_intersects', 'does the column spatially intersect the given geometry value'),
    geometryOp('_st_3d_intersects', 'does the column spatially intersect the given geometry value in 3D'),
    { name: '_st_d_within', description: 'is the column within a given distance from the given geometry value', input: ST_D_WITHIN_GEOMETRY },
    { name: '_st_3d_d_within', description: 'is the column within a given 3D distance from the given geometry value', input: ST_D_WITHIN_GEOMETRY },
  ],
  casts: [{ graphqlType: 'geography', dbType: 'geography', operators: () => GEOGRAPHY }],
};

const GEOGRAPHY: TypeOperators = {
  ordering: true,
  operators: [
    { name: '_st_intersects', description: 'does the column spatially intersect the given geography value', input: value('geography') },
    {
      name: '_st_d_within',
      description: 'is the column within a given distance from the given geography value',
      input: {
        kind: 'object',
        typeName: 'st_d_within_geography_input',
        fields: [
          { name: 'distance', dbType: 'float8', graphqlType: 'Float', required: true },
          { name: 'from', dbType: 'geography', graphqlType: 'geography', required: true },
          { name: 'use_spheroid', dbType: 'bool', graphqlType: 'Boolean', required: false, defaultValue: true },
        ],
      },
    },
  ],
  casts: [{ graphqlType: 'geometry', dbType: 'geometry', operators: () => GEOMETRY }],
};

const RASTER: TypeOperators = {
  // The reference gives raster no ordering operators.
  ordering: false,
  operators: [
    { name: '_st_intersects_rast', input: value('raster') },
    {
      name: '_st_intersects_nband_geom',
      input: {
        kind: 'object',
        typeName: 'st_intersects_nband_geom_input',
        fields: [
          { name: 'nband', dbType: 'int4', graphqlType: 'Int', required: true },
          { name: 'geommin', dbType: 'geometry', graphqlType: 'geometry', required: true },
        ],
      },
    },
    {
      name: '_st_intersects_geom_nband',
      input: {
        kind: 'object',
        typeName: 'st_intersects_geom_min_nband_input',
        fields: [
          { name: 'geommin', dbType: 'geometry', graphqlType: 'geometry', required: true },
          { name: 'nband', dbType: 'int4', graphqlType: 'Int', required: false },
        ],
      },
    },
  ],
  casts: [],
};

const LTREE: TypeOperators = {
  ordering: true,
  operators: [
    { name: '_ancestor', description: 'is the left argument an ancestor of right (or equal)?', input: value('ltree') },
    { name: '_ancestor_any', description: 'does array contain an ancestor of `ltree`?', input: value('ltree', 'ltree', true) },
    { name: '_descendant', description: 'is the left argument a descendant of right (or equal)?', input: value('ltree') },
    { name: '_descendant_any', description: 'does array contain a descendant of `ltree`?', input: value('ltree', 'ltree', true) },
    { name: '_matches', description: 'does `ltree` match `lquery`?', input: value('lquery') },
    // The reference types the list's items as String, and casts the list to lquery[].
    { name: '_matches_any', description: 'does `ltree` match any `lquery` in array?', input: value('lquery', 'String', true) },
    { name: '_matches_fulltext', description: 'does `ltree` match `ltxtquery`?', input: value('ltxtquery') },
  ],
  casts: [],
};

const BY_TYPE: ReadonlyMap<string, TypeOperators> = new Map([
  ['geometry', GEOMETRY],
  ['geography', GEOGRAPHY],
  ['raster', RASTER],
  ['ltree', LTREE],
]);

/** The extra comparison operators of a column type, by the catalog's type name. */
export function extensionTypeOperators(type: string): TypeOperators | undefined {
  return BY_TYPE.get(type);
}

/** How each extension operator compiles, given the column's SQL and the values' SQL by field. */
const OPERATOR_SQL: Readonly<Record<string, (lhs: string, a: Readonly<Record<string, string>>) => string>> = {
  _st_contains: (l, a) => `ST_Contains(${l}, ${a.value})`,
  _st_crosses: (l, a) => `ST_Crosses(${l}, ${a.value})`,
  _st_equals: (l, a) => `ST_Equals(${l}, ${a.value})`,
  _st_overlaps: (l, a) => `ST_Overlaps(${l}, ${a.value})`,
  _st_touches: (l, a) => `ST_Touches(${l}, ${a.value})`,
  _st_within: (l, a) => `ST_Within(${l}, ${a.value})`,
  _st_intersects: (l, a) => `ST_Intersects(${l}, ${a.value})`,
  _st_3d_intersects: (l, a) => `ST_3DIntersects(${l}, ${a.value})`,
  // Geography's form carries `use_spheroid`; geometry's has none.
  _st_d_within: (l, a) => (a.use_spheroid !== undefined ? `ST_DWithin(${l}, ${a.from}, ${a.distance}, ${a.use_spheroid})` : `ST_DWithin(${l}, ${a.from}, ${a.distance})`),
  _st_3d_d_within: (l, a) => `ST_3DDWithin(${l}, ${a.from}, ${a.distance})`,
  _st_intersects_rast: (l, a) => `ST_Intersects(${l}, ${a.value})`,
  _st_intersects_nband_geom: (l, a) => `ST_Intersects(${l}, ${a.nband}, ${a.geommin})`,
  _st_intersects_geom_nband: (l, a) => `ST_Intersects(${l}, ${a.geommin}, ${a.nband})`,
  _ancestor: (l, a) => `(${l} @> ${a.value})`,
  _ancestor_any: (l, a) => `(${l} @> ${a.value})`,
  _descendant: (l, a) => `(${l} <@ ${a.value})`,
  _descendant_any: (l, a) => `(${l} <@ ${a.value})`,
  _matches: (l, a) => `(${l} ~ ${a.value})`,
  _matches_any: (l, a) => `(${l} ? ${a.value})`,
  _matches_fulltext: (l, a) => `(${l} @ ${a.value})`,
};

/** The SQL of an extension operator, or undefined for an operator this kind does not define. */
export function extensionOperatorSql(op: string, lhs: string, args: Readonly<Record<string, string>>): string | undefined {
  return OPERATOR_SQL[op]?.(lhs, args);
}

/** Types whose values travel as GeoJSON. */
export const isGeoType = (type: string): boolean => type === 'geometry' || type === 'geography';

/**
 * The SQL of a value of an extension type given `text`, the SQL of its text form (GeoJSON for
 * geometry and geography, hex WKB for raster); undefined for other types.
 */
export function extensionValueSql(type: string, text: string, array: boolean): string | undefined {
  const one = (t: string): string | undefined => {
    if (type === 'geometry') return `ST_GeomFromGeoJSON(${t})`;
    if (type === 'geography') return `(ST_GeomFromGeoJSON(${t}))::geography`;
    if (type === 'raster') return `ST_RastFromHexWKB(${t})`;
    return undefined;
  };
  if (!array) return one(`(${text})::text`);
  const each = one('"__v"');
  return each === undefined ? undefined : `ARRAY(SELECT ${each} FROM unnest((${text})::text[]) AS "__v")`;
}

/** A geometry or geography column as JSON: GeoJSON with up to 15 decimals and the long CRS name. */
export const geoJsonSql = (column: string): string => `ST_AsGeoJSON(${column}, 15, 4)::json`;
