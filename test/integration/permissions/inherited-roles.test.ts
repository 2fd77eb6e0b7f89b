/**
 * Inherited roles (`--experimental-features inherited_roles`) against a real PostgreSQL: the
 * metadata operations with the reference engine's checks and messages, the union of the parents'
 * rows with cells nulled where only a parent hiding the column let the row through, mutation
 * permissions inherited only when the parents agree, and an exported document with inherited
 * roles and PostGIS permission filters applied again with replace_metadata.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { Received, transportClient, waitFor } from '../subscriptions/fixture.js';

const SCHEMA = `
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE employee (
  id int PRIMARY KEY,
  name text NOT NULL,
  dept text NOT NULL,
  salary int NOT NULL,
  office geometry
);
INSERT INTO employee VALUES
  (1, 'Ada', 'eng', 100, ST_SetSRID(ST_MakePoint(0, 0), 4326)),
  (2, 'Alan', 'eng', 90, ST_SetSRID(ST_MakePoint(5, 5), 4326)),
  (3, 'Grace', 'sales', 80, ST_SetSRID(ST_MakePoint(0.5, 0.5), 4326)),
  (4, 'Edsger', 'ops', 70, NULL);
CREATE FUNCTION salary_band(e employee) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT CASE WHEN e.salary >= 90 THEN 'high' ELSE 'normal' END $$;
CREATE FUNCTION georoles_touch(who int) RETURNS SETOF employee LANGUAGE sql VOLATILE AS
  $$ UPDATE employee SET name = name WHERE id = who RETURNING * $$;
`;

const SELF = { columns: ['id', 'name', 'salary'], filter: { id: { _eq: 'X-Svc-User-Id' } }, limit: 5 };
const DIRECTORY = { columns: ['id', 'name', 'dept'], filter: { dept: { _eq: 'eng' } }, limit: 10, allow_aggregations: true };
const NEARBY = {
  columns: ['id', 'office'],
  filter: { office: { _st_d_within: { distance: 1, from: { type: 'Point', coordinates: [0, 0], crs: { type: 'name', properties: { name: 'EPSG:4326' } } } } } },
};
const UPDATE = { columns: ['name'], filter: { id: { _eq: 'X-Svc-User-Id' } }, check: null };

const as = (role: string, userId?: number): Record<string, string> =>
  userId === undefined ? { 'x-svc-role': role } : { 'x-svc-role': role, 'x-svc-user-id': String(userId) };

describe('inherited roles (integration)', function () {
  this.timeout(60000);
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('georoles_inherited', SCHEMA);
    engine = await startTestEngine({ databaseUrl: db.url, experimentalFeatures: ['inherited_roles'] });
    const res = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'employee' } },
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'self', permission: SELF } },
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'directory', permission: DIRECTORY } },
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'nearby', permission: NEARBY } },
        { type: 'pg_create_update_permission', args: { table: 'employee', role: 'self', permission: UPDATE } },
        { type: 'pg_create_update_permission', args: { table: 'employee', role: 'directory', permission: UPDATE } },
        { type: 'pg_create_insert_permission', args: { table: 'employee', role: 'self', permission: { columns: ['id', 'name'], check: {} } } },
        { type: 'pg_create_insert_permission', args: { table: 'employee', role: 'nearby', permission: { columns: ['id'], check: {} } } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('refuses add_inherited_role when the experimental feature is off, as the reference does', async () => {
    const off = await startTestEngine({ databaseUrl: db.url });
    try {
      const res = await metadata(off, { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['self', 'directory'] } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        path: '$.args',
        error: 'inherited role can only be added when inherited_roles enabled in the experimental features',
        code: 'constraint-violation',
      });
    } finally {
      await off.close();
    }
  });

  it('refuses a role that names itself, missing parents, and unknown roles to drop', async () => {
    const self = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'x', role_set: ['x', 'self'] } });
    expect(self.status).to.equal(400);
    expect(self.body).to.deep.include({ code: 'invalid-params', error: 'an inherited role name cannot be in the role combination' });

    const missing = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'x', role_set: ['self', 'ghost'] } });
    expect(missing.status).to.equal(400);
    expect(missing.body.code).to.equal('invalid-configuration');
    expect(missing.body.error).to.equal(
      'Inconsistent object: the following parent role(s) are not found: ghost which are required to construct the inherited role: "x"',
    );

    const drop = await metadata(engine, { type: 'drop_inherited_role', args: { role_name: 'nobody' } });
    expect(drop.status).to.equal(400);
    expect(drop.body).to.deep.include({ code: 'not-exists', error: '"nobody" inherited role doesn\'t exist' });
  });

  it('refuses parents whose insert permissions differ, with the reference inconsistency', async () => {
    const res = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'clash', role_set: ['self', 'nearby'] } });
    expect(res.status).to.equal(400);
    expect(res.body.internal ?? res.body).to.satisfy((x: unknown) => JSON.stringify(x).includes(
      "Could not inherit permission for the role 'clash' for the entity: 'insert permission, table: employee, source: 'default''",
    ));
    const inconsistent = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(inconsistent.body.is_consistent).to.equal(true);
  });

  it('serves the union of the parents rows, nulling cells only a hiding parent let through', async () => {
    const add = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['self', 'directory'] } });
    expect(add.status, JSON.stringify(add.body)).to.equal(200);

    const res = await graphql(engine, '{ employee(order_by: {id: asc}) { id name dept salary } }', undefined, as('staff', 3));
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    const expected = (
      await db.sql(`
        SELECT id, name,
               CASE WHEN dept = 'eng' THEN dept END AS dept,
               CASE WHEN id = 3 THEN salary END AS salary
        FROM employee WHERE id = 3 OR dept = 'eng' ORDER BY id`)
    ).rows;
    expect(res.body.data.employee).to.deep.equal(expected);
    expect(expected).to.deep.equal([
      { id: 1, name: 'Ada', dept: 'eng', salary: null },
      { id: 2, name: 'Alan', dept: 'eng', salary: null },
      { id: 3, name: 'Grace', dept: null, salary: 80 },
    ]);
  });

  it('nulls the same cells in the legacy /v1/query select, its where and order_by', async () => {
    const select = (args: Record<string, unknown>) => call(engine, '/v1/query', { type: 'select', args: { table: 'employee', ...args } }, as('staff', 3));
    const all = await select({ columns: ['*'], order_by: ['id'] });
    expect(all.status, JSON.stringify(all.body)).to.equal(200);
    expect(all.body).to.deep.equal([
      { id: 1, name: 'Ada', dept: 'eng', salary: null },
      { id: 2, name: 'Alan', dept: 'eng', salary: null },
      { id: 3, name: 'Grace', dept: null, salary: 80 },
    ]);
    const filtered = await select({ columns: ['id'], where: { salary: { $gte: 85 } } });
    expect(filtered.body).to.deep.equal([]);
    const ordered = await select({ columns: ['id'], order_by: ['+salary', 'id'] });
    expect(ordered.body).to.deep.equal([{ id: 3 }, { id: 1 }, { id: 2 }]);
  });

  it('filters on a hidden cell as the null it reads as', async () => {
    const res = await graphql(engine, '{ employee(where: {salary: {_gte: 85}}) { id } }', undefined, as('staff', 3));
    expect(res.body.data.employee).to.deep.equal([]);
    const own = await graphql(engine, '{ employee(where: {salary: {_is_null: false}}) { id salary } }', undefined, as('staff', 3));
    expect(own.body.data.employee).to.deep.equal([{ id: 3, salary: 80 }]);
  });

  it('takes the largest limit and any parent allowing aggregations, and makes the columns nullable', async () => {
    const agg = await graphql(engine, '{ employee_aggregate { aggregate { count } } }', undefined, as('staff', 3));
    expect(agg.body.errors, JSON.stringify(agg.body.errors)).to.equal(undefined);
    expect(agg.body.data.employee_aggregate.aggregate.count).to.equal(3);
    const t = await graphql(engine, '{ __type(name: "employee") { fields { name type { kind } } } }', undefined, as('staff', 3));
    expect(t.body.data.__type.fields.map((f: { type: { kind: string } }) => f.type.kind)).to.deep.equal(['SCALAR', 'SCALAR', 'SCALAR', 'SCALAR']);
  });

  it('inherits a mutation permission the parents agree on, and lets an explicit one override', async () => {
    const res = await graphql(engine, 'mutation { update_employee(where: {}, _set: {name: "Grace H."}) { affected_rows } }', undefined, as('staff', 3));
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.update_employee.affected_rows).to.equal(1);
    expect((await db.sql('SELECT name FROM employee WHERE id = 3')).rows[0].name).to.equal('Grace H.');
    await db.sql("UPDATE employee SET name = 'Grace' WHERE id = 3");

    // `staff` has no insert: only `self` defines one, so it is inherited.
    const ins = await graphql(engine, '{ __type(name: "mutation_root") { fields { name } } }', undefined, as('staff', 3));
    expect(ins.body.data.__type.fields.map((f: { name: string }) => f.name)).to.include('insert_employee');

    const override = await metadata(engine, {
      type: 'pg_create_select_permission',
      args: { table: 'employee', role: 'staff', permission: { columns: ['id'], filter: { id: { _eq: 1 } } } },
    });
    expect(override.status, JSON.stringify(override.body)).to.equal(200);
    const res2 = await graphql(engine, '{ employee { id } }', undefined, as('staff', 3));
    expect(res2.body.data.employee).to.deep.equal([{ id: 1 }]);
    await metadata(engine, { type: 'pg_drop_select_permission', args: { table: 'employee', role: 'staff' } });
  });

  it('inherits from an inherited role, and refuses cycles', async () => {
    const res = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'everyone', role_set: ['staff', 'nearby'] } });
    // `nearby` and `self` (through staff) define different inserts.
    expect(res.status).to.equal(400);
    const ok = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_drop_insert_permission', args: { table: 'employee', role: 'nearby' } },
        { type: 'add_inherited_role', args: { role_name: 'everyone', role_set: ['staff', 'nearby'] } },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    const rows = await graphql(engine, '{ employee(order_by: {id: asc}) { id salary office } }', undefined, as('everyone', 3));
    expect(rows.body.errors, JSON.stringify(rows.body.errors)).to.equal(undefined);
    const expected = (
      await db.sql(`
        SELECT id, CASE WHEN id = 3 THEN salary END AS salary,
               CASE WHEN ST_DWithin(office, ST_SetSRID(ST_MakePoint(0, 0), 4326), 1) THEN ST_AsGeoJSON(office, 15, 4)::json END AS office
        FROM employee
        WHERE id = 3 OR dept = 'eng' OR ST_DWithin(office, ST_SetSRID(ST_MakePoint(0, 0), 4326), 1)
        ORDER BY id`)
    ).rows;
    expect(rows.body.data.employee).to.deep.equal(expected);

    const cycle = await metadata(engine, { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['self', 'everyone'] } });
    expect(cycle.status).to.equal(400);
    expect(cycle.body.code).to.equal('cyclic-dependency');
    expect(cycle.body.error).to.match(/^found cycle\(s\) in roles: \[/);
  });

  it('lets an inherited role call a function any parent may call', async () => {
    const setup = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_function', args: { function: 'georoles_touch', configuration: { exposed_as: 'mutation' } } },
        { type: 'pg_create_function_permission', args: { function: 'georoles_touch', role: 'directory' } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    const call = 'mutation { georoles_touch(args: {who: 1}) { id name } }';
    const res = await graphql(engine, call, undefined, as('staff', 3));
    expect(res.body).to.deep.equal({ data: { georoles_touch: [{ id: 1, name: 'Ada' }] } });
    const denied = await graphql(engine, call, undefined, as('self', 3));
    expect(denied.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('lets an inherited role run an action any parent may run', async () => {
    const setup = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'set_custom_types', args: { objects: [{ name: 'Pong', fields: [{ name: 'ok', type: 'Boolean!' }] }] } },
        {
          type: 'create_action',
          args: { name: 'georoles_ping', definition: { kind: 'synchronous', type: 'query', handler: 'http://127.0.0.1:9/h', output_type: 'Pong', arguments: [] } },
        },
        { type: 'create_action_permission', args: { action: 'georoles_ping', role: 'directory' } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    const fields = async (role: string): Promise<string[]> => {
      const res = await graphql(engine, '{ __schema { queryType { fields { name } } } }', undefined, as(role, 3));
      return res.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    };
    expect(await fields('staff')).to.include('georoles_ping');
    expect(await fields('self')).to.not.include('georoles_ping');
  });

  it('nulls hidden cells in aggregates, order_by, distinct_on and by-primary-key lookups too', async () => {
    const agg = await graphql(
      engine,
      '{ employee_aggregate { aggregate { count(columns: [salary]) sum { salary } max { salary } } } }',
      undefined,
      as('staff', 3),
    );
    expect(agg.body.errors, JSON.stringify(agg.body.errors)).to.equal(undefined);
    expect(agg.body.data.employee_aggregate.aggregate).to.deep.equal({ count: 1, sum: { salary: 80 }, max: { salary: 80 } });
    const ordered = await graphql(engine, '{ employee(order_by: [{dept: asc_nulls_first}, {id: desc}]) { id } }', undefined, as('staff', 3));
    expect(ordered.body.data.employee).to.deep.equal([{ id: 3 }, { id: 2 }, { id: 1 }]);
    const distinct = await graphql(
      engine,
      '{ employee(distinct_on: salary, order_by: [{salary: asc}, {id: asc}]) { id salary } }',
      undefined,
      as('staff', 3),
    );
    expect(distinct.body.errors, JSON.stringify(distinct.body.errors)).to.equal(undefined);
    expect(distinct.body.data.employee).to.deep.equal([{ id: 3, salary: 80 }, { id: 1, salary: null }]);
    const nested = await graphql(
      engine,
      '{ employee_aggregate(order_by: {salary: desc}, limit: 3) { nodes { id } } }',
      undefined,
      as('staff', 3),
    );
    // Descending puts nulls first: the two hidden salaries, then Grace's own.
    const ids = nested.body.data.employee_aggregate.nodes.map((n: { id: number }) => n.id);
    expect(ids[2]).to.equal(3);
    expect([...ids.slice(0, 2)].sort()).to.deep.equal([1, 2]);
  });

  it('nulls a scalar computed field on rows only a parent hiding it let through', async () => {
    const setup = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_add_computed_field', args: { table: 'employee', name: 'band', definition: { function: 'salary_band' } } },
        { type: 'pg_drop_select_permission', args: { table: 'employee', role: 'self' } },
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'self', permission: { ...SELF, computed_fields: ['band'] } } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    const res = await graphql(engine, '{ employee(order_by: {id: asc}) { id band } }', undefined, as('staff', 3));
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.employee).to.deep.equal([
      { id: 1, band: null },
      { id: 2, band: null },
      { id: 3, band: 'normal' },
    ]);
    // In where and order_by it reads as the same null: Ada's band is 'high', but not for this role.
    const high = await graphql(engine, '{ employee(where: {band: {_eq: "high"}}) { id } }', undefined, as('staff', 3));
    expect(high.body.errors, JSON.stringify(high.body.errors)).to.equal(undefined);
    expect(high.body.data.employee).to.deep.equal([]);
    const ordered = await graphql(engine, '{ employee(order_by: [{band: asc}, {id: asc}]) { id } }', undefined, as('staff', 3));
    expect(ordered.body.data.employee).to.deep.equal([{ id: 3 }, { id: 1 }, { id: 2 }]);
  });

  it('keeps subscribers apart when only a hidden cell reads their session', async () => {
    const setup = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'roster', permission: { columns: ['id'], filter: {} } } },
        { type: 'pg_create_select_permission', args: { table: 'employee', role: 'payslip', permission: { columns: ['id', 'salary'], filter: { id: 'X-Svc-User-Id' } } } },
        { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['roster', 'payslip'] } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    const url = engine.url.replace(/^http/, 'ws') + '/v1/graphql';
    const clients = [transportClient(url, as('member', 1)), transportClient(url, as('member', 2))];
    try {
      const got = clients.map(() => new Received<{ data: { employee: Array<{ id: number; salary: number | null }> } }>());
      clients.forEach((c, i) => c.subscribe({ query: 'subscription { employee(order_by: {id: asc}, limit: 2) { id salary } }' }, got[i]!.sink));
      await waitFor(() => (got.every((g) => g.values.length > 0) ? true : undefined), 10000, 'first results');
      expect(got[0]!.values[0]!.data.employee).to.deep.equal([{ id: 1, salary: 100 }, { id: 2, salary: null }]);
      expect(got[1]!.values[0]!.data.employee).to.deep.equal([{ id: 1, salary: null }, { id: 2, salary: 90 }]);
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('streams only the rows whose cursor cell the role sees', async () => {
    const url = engine.url.replace(/^http/, 'ws') + '/v1/graphql';
    const client = transportClient(url, as('staff', 3));
    try {
      const got = new Received<{ data: { employee_stream: Array<{ id: number; salary: number | null }> } }>();
      client.subscribe({ query: 'subscription { employee_stream(batch_size: 10, cursor: {initial_value: {salary: 0}}) { id salary } }' }, got.sink);
      await waitFor(() => (got.values.length > 0 || got.errors.length > 0 ? true : undefined), 10000, 'first batch');
      expect(got.errors).to.deep.equal([]);
      expect(got.values[0]!.data.employee_stream).to.deep.equal([{ id: 3, salary: 80 }]);
    } finally {
      await client.dispose();
    }
  });

  it('exports inherited roles with PostGIS filters and computed-field permissions; replace_metadata serves the same answers', async () => {
    const exported = await metadata(engine, { type: 'export_metadata', args: {} });
    expect(exported.body.inherited_roles).to.deep.equal([
      { role_name: 'staff', role_set: ['self', 'directory'] },
      { role_name: 'everyone', role_set: ['staff', 'nearby'] },
      { role_name: 'member', role_set: ['roster', 'payslip'] },
    ]);
    // A computed field in a parent's permission, a PostGIS filter in another's, through two levels.
    const query = '{ employee(order_by: {id: asc}) { id name dept salary office band } }';
    const before = await graphql(engine, query, undefined, as('everyone', 3));

    const other = await createTestDatabase('georoles_replace', SCHEMA);
    const fresh = await startTestEngine({ databaseUrl: other.url, experimentalFeatures: ['inherited_roles'] });
    try {
      const doc = exported.body;
      // The default source is the engine's own database, referenced by environment variable.
      const replaced = await metadata(fresh, { type: 'replace_metadata', args: doc });
      expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
      const after = await graphql(fresh, query, undefined, as('everyone', 3));
      expect(before.body.errors, JSON.stringify(before.body.errors)).to.equal(undefined);
      expect(before.body.data.employee.find((e: { id: number }) => e.id === 3)).to.deep.include({ band: 'normal', salary: 80 });
      expect(after.body).to.deep.equal(before.body);
      const again = await metadata(fresh, { type: 'export_metadata', args: {} });
      expect(again.body.inherited_roles).to.deep.equal(doc.inherited_roles);
      const nearby = await graphql(fresh, '{ employee { id } }', undefined, as('nearby'));
      expect(nearby.body.data.employee).to.deep.equal([{ id: 1 }, { id: 3 }]);
    } finally {
      await fresh.close();
      await other.drop();
    }
  });

  it('drops an inherited role', async () => {
    expect((await metadata(engine, { type: 'drop_inherited_role', args: { role_name: 'everyone' } })).status).to.equal(200);
    const res = await graphql(engine, '{ employee { id } }', undefined, as('everyone', 3));
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
  });
});
