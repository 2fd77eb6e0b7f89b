/**
 * PostGIS and ltree in GraphQL `where`, permission filters and the legacy `/v1/query` select, with
 * the reference engine's operators, input types and GeoJSON in and out. Each answer is checked
 * against the same condition run by PostgreSQL itself.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';

const SCHEMA = `
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE EXTENSION IF NOT EXISTS ltree;
CREATE TABLE place (
  id int PRIMARY KEY,
  name text NOT NULL,
  geom geometry,
  geog geography,
  owner_id int
);
INSERT INTO place VALUES
  (1, 'origin', ST_SetSRID(ST_MakePoint(0, 0), 4326), ST_MakePoint(0, 0)::geography, 1),
  (2, 'near', ST_SetSRID(ST_MakePoint(1, 1), 4326), ST_MakePoint(0.001, 0.001)::geography, 1),
  (3, 'far', ST_SetSRID(ST_MakePoint(10, 10), 4326), ST_MakePoint(10, 10)::geography, 2),
  (4, 'line', ST_SetSRID(ST_MakeLine(ST_MakePoint(-1, 0), ST_MakePoint(1, 0)), 4326), NULL, 2),
  (5, 'area', ST_SetSRID(ST_MakeEnvelope(-2, -2, 2, 2), 4326), NULL, 3),
  (6, 'nothing', NULL, NULL, 3);
CREATE FUNCTION place_center(p place) RETURNS geometry LANGUAGE sql STABLE AS $$ SELECT ST_Centroid(p.geom) $$;
CREATE TABLE tree (id int PRIMARY KEY, path ltree NOT NULL);
INSERT INTO tree VALUES (1, 'Top'), (2, 'Top.Science'), (3, 'Top.Science.Astronomy'),
  (4, 'Top.Hobbies'), (5, 'Top.Hobbies.Amateurs_Astronomy'), (6, 'Other');
CREATE TABLE tile (rid int PRIMARY KEY, rast raster);
INSERT INTO tile VALUES
  (1, ST_AddBand(ST_MakeEmptyRaster(2, 2, 0, 2, 1, -1, 0, 0, 4326), '8BUI'::text, 1, 0)),
  (2, ST_AddBand(ST_MakeEmptyRaster(2, 2, 20, 22, 1, -1, 0, 0, 4326), '8BUI'::text, 1, 0));
`;

const point = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y], crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } } });
const square = (x0: number, y0: number, x1: number, y1: number) => ({
  type: 'Polygon',
  coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]],
  crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } },
});

describe('PostgreSQL extension types: PostGIS and ltree (integration)', function () {
  this.timeout(60000);
  let db: TestDatabase;
  let engine: Engine;
  const ids = async (table: string, where: string, variables?: Record<string, unknown>, key = 'id'): Promise<number[]> => {
    const decls = [where.includes('$v') ? '$v: geometry!' : '', where.includes('$g') ? '$g: geography!' : ''].filter(Boolean);
    const head = decls.length ? `query (${decls.join(', ')})` : 'query';
    const res = await graphql(engine, `${head} { ${table}(where: ${where}, order_by: {${key}: asc}) { ${key} } }`, variables);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return (res.body.data[table] as Array<Record<string, number>>).map((r) => r[key]!);
  };
  const sqlIds = async (table: string, cond: string, key = 'id'): Promise<number[]> =>
    (await db.sql(`SELECT ${key} FROM ${table} WHERE ${cond} ORDER BY ${key}`)).rows.map((r: Record<string, number>) => r[key]!);

  before(async () => {
    db = await createTestDatabase('georoles_ext', SCHEMA);
    engine = await startTestEngine({ databaseUrl: db.url });
    const res = await metadata(engine, {
      type: 'bulk',
      args: ['place', 'tree', 'tile'].map((name) => ({ type: 'pg_track_table', args: { table: name } })),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('outputs geometry and geography columns as GeoJSON, as ST_AsGeoJSON(col, 15, 4) does', async () => {
    const res = await graphql(engine, '{ place(order_by: {id: asc}, limit: 2) { id geom geog } }');
    const expected = (await db.sql('SELECT id, ST_AsGeoJSON(geom, 15, 4)::json AS geom, ST_AsGeoJSON(geog, 15, 4)::json AS geog FROM place ORDER BY id LIMIT 2')).rows;
    expect(res.body.data.place).to.deep.equal(expected);
    expect(res.body.data.place[0].geom).to.deep.equal(point(0, 0));
  });

  const geometryCases: Array<[string, Record<string, unknown>, string]> = [
    ['{geom: {_st_contains: $v}}', { v: point(0, 0) }, "ST_Contains(geom, ST_SetSRID(ST_MakePoint(0,0),4326))"],
    ['{geom: {_st_within: $v}}', { v: square(-3, -3, 3, 3) }, "ST_Within(geom, ST_MakeEnvelope(-3,-3,3,3,4326))"],
    ['{geom: {_st_intersects: $v}}', { v: square(0.5, 0.5, 1.5, 1.5) }, "ST_Intersects(geom, ST_MakeEnvelope(0.5,0.5,1.5,1.5,4326))"],
    ['{geom: {_st_crosses: $v}}', { v: { type: 'LineString', coordinates: [[0, -1], [0, 1]], crs: point(0, 0).crs } }, "ST_Crosses(geom, ST_SetSRID(ST_GeomFromText('LINESTRING(0 -1, 0 1)'),4326))"],
    ['{geom: {_st_equals: $v}}', { v: point(10, 10) }, "ST_Equals(geom, ST_SetSRID(ST_MakePoint(10,10),4326))"],
    ['{geom: {_st_overlaps: $v}}', { v: square(1, 1, 3, 3) }, "ST_Overlaps(geom, ST_MakeEnvelope(1,1,3,3,4326))"],
    ['{geom: {_st_touches: $v}}', { v: square(2, -1, 3, 1) }, "ST_Touches(geom, ST_MakeEnvelope(2,-1,3,1,4326))"],
    ['{geom: {_st_3d_intersects: $v}}', { v: point(1, 1) }, "ST_3DIntersects(geom, ST_SetSRID(ST_MakePoint(1,1),4326))"],
    ['{geom: {_st_d_within: {distance: 2, from: $v}}}', { v: point(0, 0) }, "ST_DWithin(geom, ST_SetSRID(ST_MakePoint(0,0),4326), 2)"],
    ['{geom: {_st_3d_d_within: {distance: 1.5, from: $v}}}', { v: point(0, 0) }, "ST_3DDWithin(geom, ST_SetSRID(ST_MakePoint(0,0),4326), 1.5)"],
    ['{geog: {_st_d_within: {distance: 1000, from: $g}}}', { g: point(0, 0) }, "ST_DWithin(geog, ST_MakePoint(0,0)::geography, 1000, true)"],
    ['{geog: {_st_d_within: {distance: 1000, from: $g, use_spheroid: false}}}', { g: point(0, 0) }, "ST_DWithin(geog, ST_MakePoint(0,0)::geography, 1000, false)"],
    ['{geog: {_st_intersects: $g}}', { g: point(10, 10) }, "ST_Intersects(geog, ST_MakePoint(10,10)::geography)"],
    ['{geom: {_cast: {geography: {_st_d_within: {distance: 200000, from: $g}}}}}', { g: point(0, 0) }, "ST_DWithin(geom::geography, ST_MakePoint(0,0)::geography, 200000)"],
    ['{geog: {_cast: {geometry: {_st_within: $v}}}}', { v: square(-1, -1, 1, 1) }, "ST_Within(geog::geometry, ST_MakeEnvelope(-1,-1,1,1,4326))"],
    ['{geom: {_eq: $v}}', { v: point(1, 1) }, "geom = ST_SetSRID(ST_MakePoint(1,1),4326)"],
  ];
  for (const [where, vars, sql] of geometryCases) {
    it(`place(where: ${where})  ≡  WHERE ${sql}`, async () => {
      const got = await ids('place', where, vars);
      expect(got).to.deep.equal(await sqlIds('place', sql));
      expect(got.length, 'a case that selects nothing proves little').to.be.greaterThan(0);
    });
  }

  it('takes GeoJSON written inline in the query', async () => {
    const got = await ids('place', '{geom: {_st_d_within: {distance: 0.5, from: {type: "Point", coordinates: [10, 10], crs: {type: "name", properties: {name: "EPSG:4326"}}}}}}');
    expect(got).to.deep.equal([3]);
  });

  const ltreeCases: Array<[string, string]> = [
    ['{path: {_ancestor: "Top.Science.Astronomy"}}', "path @> 'Top.Science.Astronomy'"],
    ['{path: {_ancestor_any: ["Top.Science.Astronomy", "Other"]}}', "path @> array['Top.Science.Astronomy', 'Other']::ltree[]"],
    ['{path: {_descendant: "Top.Science"}}', "path <@ 'Top.Science'"],
    ['{path: {_descendant_any: ["Top.Science", "Top.Hobbies"]}}', "path <@ array['Top.Science', 'Top.Hobbies']::ltree[]"],
    ['{path: {_matches: "*.Astronomy"}}', "path ~ '*.Astronomy'"],
    ['{path: {_matches_any: ["*.Astronomy", "Other"]}}', "path ? array['*.Astronomy', 'Other']::lquery[]"],
    ['{path: {_matches_fulltext: "Astro*"}}', "path @ 'Astro*'"],
    ['{path: {_eq: "Top"}}', "path = 'Top'"],
    ['{path: {_gt: "Top.Hobbies"}}', "path > 'Top.Hobbies'"],
  ];
  for (const [where, sql] of ltreeCases) {
    it(`tree(where: ${where})  ≡  WHERE ${sql}`, async () => {
      const res = await graphql(engine, `{ tree(where: ${where}, order_by: {id: asc}) { id path } }`);
      expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
      const expected = (await db.sql(`SELECT id, path::text AS path FROM tree WHERE ${sql} ORDER BY id`)).rows;
      expect(res.body.data.tree).to.deep.equal(expected);
      expect(expected.length).to.be.greaterThan(0);
    });
  }

  const rasterCases: Array<[string, string]> = [
    ['{rast: {_st_intersects_nband_geom: {nband: 1, geommin: $v}}}', 'ST_Intersects(rast, 1, ST_SetSRID(ST_MakePoint(1,1),4326))'],
    ['{rast: {_st_intersects_geom_nband: {geommin: $v}}}', 'ST_Intersects(rast, ST_SetSRID(ST_MakePoint(1,1),4326), NULL::int)'],
    ['{rast: {_st_intersects_geom_nband: {geommin: $v, nband: 1}}}', 'ST_Intersects(rast, ST_SetSRID(ST_MakePoint(1,1),4326), 1)'],
  ];
  for (const [where, sql] of rasterCases) {
    it(`tile(where: ${where})  ≡  WHERE ${sql}`, async () => {
      const got = await ids('tile', where, { v: point(1, 1) }, 'rid');
      expect(got).to.deep.equal(await sqlIds('tile', sql, 'rid'));
      expect(got).to.deep.equal([1]);
    });
  }

  it('compares rasters with _st_intersects_rast (hex WKB in and out)', async () => {
    const hex = (await db.sql('SELECT rast::text AS r FROM tile WHERE rid = 2')).rows[0].r as string;
    const res = await graphql(engine, 'query ($r: raster) { tile(where: {rast: {_st_intersects_rast: $r}}) { rid rast } }', { r: hex });
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.tile).to.deep.equal([{ rid: 2, rast: hex }]);
  });

  it("has the reference's comparison and input types", async () => {
    const res = await graphql(engine, `{
      g: __type(name: "geometry_comparison_exp") { inputFields { name type { name kind ofType { name } } } }
      gg: __type(name: "geography_comparison_exp") { inputFields { name } }
      r: __type(name: "raster_comparison_exp") { inputFields { name } }
      l: __type(name: "ltree_comparison_exp") { inputFields { name type { kind ofType { kind ofType { name } } } } }
      d: __type(name: "st_d_within_geography_input") { inputFields { name defaultValue type { kind name ofType { name } } } }
      n: __type(name: "st_intersects_geom_min_nband_input") { inputFields { name type { kind name ofType { name } } } }
      c: __type(name: "geometry_cast_exp") { inputFields { name type { name } } }
    }`);
    const d = res.body.data;
    const names = (t: { inputFields: Array<{ name: string }> }) => t.inputFields.map((f) => f.name);
    expect(names(d.g)).to.deep.equal([
      '_cast', '_eq', '_gt', '_gte', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin',
      '_st_3d_d_within', '_st_3d_intersects', '_st_contains', '_st_crosses', '_st_d_within', '_st_equals',
      '_st_intersects', '_st_overlaps', '_st_touches', '_st_within',
    ]);
    expect(d.g.inputFields.find((f: { name: string }) => f.name === '_st_d_within').type.name).to.equal('st_d_within_input');
    expect(names(d.gg)).to.deep.equal(['_cast', '_eq', '_gt', '_gte', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin', '_st_d_within', '_st_intersects']);
    expect(names(d.r)).to.deep.equal(['_eq', '_in', '_is_null', '_neq', '_nin', '_st_intersects_geom_nband', '_st_intersects_nband_geom', '_st_intersects_rast']);
    expect(names(d.l)).to.include.members(['_ancestor', '_ancestor_any', '_descendant', '_descendant_any', '_matches', '_matches_any', '_matches_fulltext']);
    const matchesAny = d.l.inputFields.find((f: { name: string }) => f.name === '_matches_any');
    expect(matchesAny.type).to.deep.equal({ kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'String' } } });
    expect(d.d.inputFields).to.deep.equal([
      { name: 'distance', defaultValue: null, type: { kind: 'NON_NULL', name: null, ofType: { name: 'Float' } } },
      { name: 'from', defaultValue: null, type: { kind: 'NON_NULL', name: null, ofType: { name: 'geography' } } },
      { name: 'use_spheroid', defaultValue: 'true', type: { kind: 'SCALAR', name: 'Boolean', ofType: null } },
    ]);
    expect(d.n.inputFields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind])).to.deep.equal([
      ['geommin', 'NON_NULL'],
      ['nband', 'SCALAR'],
    ]);
    expect(d.c.inputFields).to.deep.equal([{ name: 'geography', type: { name: 'geography_comparison_exp' } }]);
  });

  it('inserts GeoJSON and returns GeoJSON', async () => {
    const res = await graphql(
      engine,
      'mutation ($p: geometry, $g: geography) { insert_place_one(object: {id: 100, name: "new", geom: $p, geog: $g}) { id geom geog } }',
      { p: point(3, 4), g: point(5, 6) },
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.insert_place_one).to.deep.equal({ id: 100, geom: point(3, 4), geog: point(5, 6) });
    const row = (await db.sql('SELECT ST_AsText(geom) AS g, ST_SRID(geom) AS s FROM place WHERE id = 100')).rows[0];
    expect(row).to.deep.equal({ g: 'POINT(3 4)', s: 4326 });
    await db.sql('DELETE FROM place WHERE id = 100');
  });

  it('applies PostGIS and ltree operators in permission filters, with session variables', async () => {
    const perm = await metadata(engine, {
      type: 'bulk',
      args: [
        {
          type: 'pg_create_select_permission',
          args: {
            table: 'place',
            role: 'georoles_viewer',
            permission: {
              columns: ['id', 'name', 'geom'],
              filter: { geom: { _st_d_within: { distance: 2, from: point(0, 0) } } },
            },
          },
        },
        {
          type: 'pg_create_select_permission',
          args: { table: 'tree', role: 'georoles_viewer', permission: { columns: ['id', 'path'], filter: { path: { _descendant: 'X-Svc-Subtree' } } } },
        },
      ],
    });
    expect(perm.status, JSON.stringify(perm.body)).to.equal(200);
    const headers = { 'x-svc-role': 'georoles_viewer', 'x-svc-subtree': 'Top.Hobbies' };
    const places = await graphql(engine, '{ place(order_by: {id: asc}) { id } }', undefined, headers);
    expect(places.body.data.place.map((r: { id: number }) => r.id)).to.deep.equal(
      await sqlIds('place', 'ST_DWithin(geom, ST_SetSRID(ST_MakePoint(0,0),4326), 2)'),
    );
    const trees = await graphql(engine, '{ tree(order_by: {id: asc}) { id } }', undefined, headers);
    expect(trees.body.data.tree).to.deep.equal([{ id: 4 }, { id: 5 }]);
  });

  it('filters the legacy /v1/query select with PostGIS and ltree operators', async () => {
    const res = await call(engine, '/v1/query', {
      type: 'select',
      args: { table: 'place', columns: ['id', 'geom'], where: { geom: { _st_within: square(-3, -3, 3, 3) } }, order_by: ['id'] },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.map((r: { id: number }) => r.id)).to.deep.equal(await sqlIds('place', 'ST_Within(geom, ST_MakeEnvelope(-3,-3,3,3,4326))'));
    expect(res.body[0].geom).to.deep.equal(point(0, 0));
    const tree = await call(engine, '/v1/query', { type: 'select', args: { table: 'tree', columns: ['id'], where: { path: { $matches: '*.Astronomy' } }, order_by: ['id'] } });
    expect(tree.body).to.deep.equal([{ id: 3 }]);
  });

  it('outputs a computed field returning geometry as GeoJSON', async () => {
    const added = await metadata(engine, {
      type: 'pg_add_computed_field',
      args: { table: 'place', name: 'center', definition: { function: 'place_center' } },
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const res = await graphql(engine, '{ place(where: {id: {_eq: 5}}) { id center } }');
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.place).to.deep.equal([{ id: 5, center: point(0, 0) }]);
  });

  it('writes geometry columns into event payloads as GeoJSON', async () => {
    const created = await metadata(engine, {
      type: 'pg_create_event_trigger',
      args: { name: 'georoles_place_ins', table: 'place', webhook: 'http://127.0.0.1:9/unused', insert: { columns: '*' } },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    await db.sql("INSERT INTO place (id, name, geom) VALUES (200, 'evt', ST_SetSRID(ST_MakePoint(7, 8), 4326))");
    const rows = (await db.sql("SELECT payload FROM svc_catalog.event_log WHERE trigger_name = 'georoles_place_ins'")).rows;
    expect(rows).to.have.length(1);
    expect(rows[0].payload.data.new).to.deep.equal({ id: 200, name: 'evt', geom: point(7, 8), geog: null, owner_id: null });
    await metadata(engine, { type: 'pg_delete_event_trigger', args: { name: 'georoles_place_ins' } });
    await db.sql('DELETE FROM place WHERE id = 200');
  });

  it('refuses a bad operator value with a coded error', async () => {
    const res = await graphql(engine, '{ place(where: {geom: {_st_d_within: {from: {type: "Point", coordinates: [0, 0]}}}}) { id } }');
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
    const bad = await metadata(engine, {
      type: 'pg_create_select_permission',
      args: { table: 'place', role: 'georoles_bad', permission: { columns: ['id'], filter: { geom: { _st_d_within: { from: point(0, 0) } } } } },
    });
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body)).to.contain('distance');
  });
});
