/**
 * Role shape keys (core/schema-cache/role-shape.ts): equal exactly when what shapes the role's
 * GraphQL types is equal. Filters, checks, limits and preset values do not; columns, aggregations,
 * root-field lists, preset column names, backend-only flags, function permissions and any other
 * mention of the role in the metadata do. Admin, inherited roles and roles without a table
 * permission get no key.
 */
import { expect } from 'chai';
import { roleShapes } from '../../../core/schema-cache/role-shape.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import type { ResolvedSource, ResolvedTable, TablePermissions } from '../../../core/schema-cache/model.js';
import type { SchemaCache } from '../../../core/schema-cache/cache.js';

type Perms = { [K in keyof Omit<TablePermissions, 'cellFilters'>]?: Record<string, unknown> };

/** A snapshot of one source whose tables hold the given permissions (only what the keys read). */
function snapshot(tables: Perms[], extra: Partial<MetadataDocument> = {}, functions: Array<Set<string>> = []): Pick<SchemaCache, 'metadata' | 'sources'> {
  const resolved = new Map<string, ResolvedTable>();
  const meta: TableMetadata[] = [];
  tables.forEach((p, i) => {
    const permissions = {
      select: new Map(Object.entries(p.select ?? {})),
      insert: new Map(Object.entries(p.insert ?? {})),
      update: new Map(Object.entries(p.update ?? {})),
      delete: new Map(Object.entries(p.delete ?? {})),
    } as unknown as TablePermissions;
    resolved.set(`public.t${i}`, { key: `public.t${i}`, permissions } as unknown as ResolvedTable);
    const entries = (m: Map<string, unknown>) => [...m].map(([role, permission]) => ({ role, permission }));
    meta.push({
      table: { schema: 'public', name: `t${i}` },
      select_permissions: entries(permissions.select),
      insert_permissions: entries(permissions.insert),
      update_permissions: entries(permissions.update),
      delete_permissions: entries(permissions.delete),
    } as unknown as TableMetadata);
  });
  const fns = new Map(functions.map((permissions, i) => [`public.f${i}`, { permissions }] as const));
  const source = { name: 'default', tables: resolved, functions: fns } as unknown as ResolvedSource;
  const metadata: MetadataDocument = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: meta, configuration: {} }], ...extra };
  return { metadata, sources: new Map([['default', source]]) };
}

const select = (filter: unknown, more: Record<string, unknown> = {}) => ({ columns: ['id', 'name'], filter, ...more });

const schemaKeys = (snap: Pick<SchemaCache, 'metadata' | 'sources'>) => new Map([...roleShapes(snap)].map(([role, shape]) => [role, shape.schema] as const));

describe('role shape keys', () => {
  it('are equal for roles differing only in filters, checks, limits and preset values', () => {
    const keys = schemaKeys(
      snapshot([
        {
          select: { a: select({ id: { _eq: 1 } }, { limit: 5 }), b: select({ id: { _eq: 2 } }) },
          insert: { a: { columns: ['name'], check: { id: 1 }, set: { owner: 'X-Svc-User-Id' } }, b: { columns: ['name'], check: {}, set: { owner: 7 } } },
          update: { a: { columns: ['name'], filter: { id: 1 }, check: null }, b: { columns: ['name'], filter: {}, check: { id: 2 } } },
          delete: { a: { filter: { id: 1 } }, b: { filter: {} } },
        },
        { select: { a: { columns: ['x', 'y'], filter: {} }, b: { columns: ['y', 'x'], filter: { x: 1 } } } },
      ]),
    );
    expect(keys.get('a')).to.be.a('string');
    expect(keys.get('a')).to.equal(keys.get('b'));
  });

  const differs = (name: string, a: Perms, b: Perms) =>
    it(`differ when ${name}`, () => {
      const merged: Record<string, Record<string, unknown>> = {};
      for (const side of [a, b] as Array<Record<string, Record<string, unknown>>>) {
        for (const [kind, perms] of Object.entries(side)) merged[kind] = { ...merged[kind], ...perms };
      }
      const keys = schemaKeys(snapshot([merged as Perms]));
      expect(keys.get('a')).to.not.equal(keys.get('b'));
    });
  differs('the columns differ', { select: { a: select({}) } }, { select: { b: { columns: ['id'], filter: {} } } });
  differs('aggregations differ', { select: { a: select({}) } }, { select: { b: select({}, { allow_aggregations: true }) } });
  differs('root fields differ', { select: { a: select({}) } }, { select: { b: select({}, { query_root_fields: ['select'] }) } });
  differs('computed fields differ', { select: { a: select({}) } }, { select: { b: select({}, { computed_fields: ['full'] }) } });
  differs(
    'preset columns differ',
    { select: { a: select({}), b: select({}) }, insert: { a: { columns: ['name'], check: {}, set: { id: 1 } } } },
    { insert: { b: { columns: ['name'], check: {} } } },
  );
  differs(
    'one permission is backend-only',
    { select: { a: select({}), b: select({}) }, delete: { a: { filter: {} } } },
    { delete: { b: { filter: {}, backend_only: true } } },
  );
  differs('only one may delete', { select: { a: select({}), b: select({}) }, delete: { a: { filter: {} } } }, {});

  it('differ when only one has a function permission', () => {
    const keys = schemaKeys(snapshot([{ select: { a: select({}), b: select({}) } }], {}, [new Set(['a'])]));
    expect(keys.get('a')).to.not.equal(keys.get('b'));
  });

  it('differ when the metadata names one role elsewhere (actions, remote schemas), and not when both alike', () => {
    const tables: Perms[] = [{ select: { a: select({}), b: select({}), c: select({}) } }];
    const keys = schemaKeys(
      snapshot(tables, {
        actions: [{ name: 'act', definition: {}, permissions: [{ role: 'a' }, { role: 'c' }] }],
        remote_schemas: [
          {
            name: 'rs',
            definition: {},
            permissions: [
              { role: 'a', definition: { schema: 'type Query { x: Int }' } },
              { role: 'c', definition: { schema: 'type Query { x: Int y: Int }' } },
            ],
          },
        ],
      }),
    );
    expect(keys.get('a')).to.not.equal(keys.get('b'));
    expect(keys.get('a')).to.not.equal(keys.get('c'));
    const alike = schemaKeys(snapshot(tables, { actions: [{ name: 'act', permissions: [{ role: 'b' }, { role: 'a' }] }] }));
    expect(alike.get('a')).to.equal(alike.get('b'));
    const listed = schemaKeys(snapshot(tables, { graphql_schema_introspection: { disabled_for_roles: ['a'] } }));
    expect(listed.get('a')).to.not.equal(listed.get('b'));
  });

  it('share the read-types key between roles differing only in writes, functions and other mentions; not with remote relationships', () => {
    const tables: Perms[] = [{ select: { a: select({ id: 1 }), b: select({ id: 2 }), c: { columns: ['id'], filter: {} } }, insert: { a: { columns: ['name'], check: {} } } }];
    const shapes = roleShapes(snapshot(tables, { actions: [{ name: 'act', permissions: [{ role: 'b' }] }] }, [new Set(['a'])]));
    expect(shapes.get('a')!.schema).to.not.equal(shapes.get('b')!.schema);
    expect(shapes.get('a')!.types).to.be.a('string');
    expect(shapes.get('a')!.types).to.equal(shapes.get('b')!.types);
    expect(shapes.get('a')!.types).to.not.equal(shapes.get('c')!.types);
    const remote = snapshot(tables);
    (remote.metadata.sources[0]!.tables[0] as TableMetadata).remote_relationships = [{ name: 'r', definition: {} }];
    expect(roleShapes(remote).get('a')!.types).to.equal(null);
  });

  it('share the views key between roles whose select permissions are alike down to filters and limits, whatever their writes', () => {
    const tables: Perms[] = [
      {
        select: {
          a: select({ id: { _eq: 'X-Svc-User-Id' }, name: { _like: 'x%' } }, { limit: 5 }),
          // The same filter with its keys in another order: the same rows.
          b: select({ name: { _like: 'x%' }, id: { _eq: 'X-Svc-User-Id' } }, { limit: 5 }),
          c: select({ id: { _eq: 'X-Svc-User-Id' }, name: { _like: 'x%' } }, { limit: 6 }),
          d: select({ id: { _eq: 'X-Svc-User-Id' } }, { limit: 5 }),
        },
        insert: { a: { columns: ['name'], check: {} } },
      },
    ];
    const shapes = roleShapes(snapshot(tables));
    const views = (role: string) => shapes.get(role)!.views;
    expect(views('a')).to.be.a('string');
    expect(shapes.get('a')!.schema).to.not.equal(shapes.get('b')!.schema);
    expect(views('b')).to.equal(views('a'));
    expect(views('c'), 'another limit').to.not.equal(views('a'));
    expect(views('d'), 'another filter').to.not.equal(views('a'));
    for (const role of ['b', 'c', 'd']) expect(shapes.get(role)!.types).to.equal(shapes.get('a')!.types);
    const remote = snapshot(tables);
    (remote.metadata.sources[0]!.tables[0] as TableMetadata).remote_relationships = [{ name: 'r', definition: {} }];
    expect(roleShapes(remote).get('a')!.views).to.equal(null);
  });

  it('are not given to admin, inherited roles, or roles without a table permission', () => {
    const keys = schemaKeys(
      snapshot([{ select: { admin: select({}), a: select({}), both: select({}) } }], {
        inherited_roles: [{ role_name: 'both', role_set: ['a'] }],
        actions: [{ name: 'act', permissions: [{ role: 'only_action' }] }],
      }),
    );
    expect([...keys.keys()]).to.deep.equal(['a']);
  });
});
