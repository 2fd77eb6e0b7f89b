/**
 * The generated schema of the metadata scale run (`npm run bench:scale`): N tables in a tree (each
 * table but the first has a foreign key to its parent table, three children per parent), a few
 * rows each, and the metadata that tracks them all with an object relationship to the parent, an
 * array relationship from the parent, and R roles with permissions:
 *   - select on every table: a column list (odd roles do not see `amount`), a row filter on the
 *     `X-Svc-User-Id` session variable (every third role also through the parent relationship),
 *     aggregations for even roles;
 *   - insert and update on a fifth of the tables (a different fifth per role): a check and a filter
 *     on the session variable, column lists, `owner_id` preset from the session.
 */
import pg from 'pg';

export const ROWS_PER_TABLE = 5;

export const tableName = (i: number): string => `t${String(i).padStart(4, '0')}`;
export const roleName = (r: number): string => `role_${String(r).padStart(2, '0')}`;
/** The parent of table i (1-based) in the tree, or null for the root. */
export const parentOf = (i: number): number | null => (i === 1 ? null : Math.floor((i - 2) / 3) + 1);
export const childrenRelationship = (child: number): string => `children_${tableName(child)}`;

function tableDdl(i: number): string {
  const parent = parentOf(i);
  const fk = parent === null ? '' : ` REFERENCES ${tableName(parent)}(id)`;
  return `CREATE TABLE ${tableName(i)} (
  id serial PRIMARY KEY,
  parent_id int${fk},
  owner_id int NOT NULL,
  name text NOT NULL,
  amount numeric NOT NULL DEFAULT 0,
  flag boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ON ${tableName(i)} (parent_id);
INSERT INTO ${tableName(i)} (parent_id, owner_id, name, amount)
  SELECT ${parent === null ? 'NULL' : 'g'}, g, 'row ' || g, g * 10 FROM generate_series(1, ${ROWS_PER_TABLE}) g;`;
}

/** Creates tables 1..count (dropping earlier ones of the same names), parents before children. */
export async function createScaleTables(databaseUrl: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
    const chunk = 100;
    for (let from = 1; from <= count; from += chunk) {
      const statements: string[] = [];
      for (let i = from; i < Math.min(from + chunk, count + 1); i++) statements.push(tableDdl(i));
      await client.query(statements.join('\n'));
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** A table outside the tracked set, for the incremental measurement: a child of table 1. */
export async function createExtraTable(databaseUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `CREATE TABLE ${name} (id serial PRIMARY KEY, parent_id int REFERENCES ${tableName(1)}(id), owner_id int NOT NULL, name text NOT NULL);
       INSERT INTO ${name} (parent_id, owner_id, name) SELECT g, g, 'row ' || g FROM generate_series(1, ${ROWS_PER_TABLE}) g;`,
    );
  } finally {
    await client.end();
  }
}

const USER_ID = 'X-Svc-User-Id';

interface TableEntry {
  table: { schema: string; name: string };
  object_relationships?: unknown[];
  array_relationships?: unknown[];
  select_permissions?: unknown[];
  insert_permissions?: unknown[];
  update_permissions?: unknown[];
}

function selectPermission(i: number, r: number): unknown {
  const columns = ['id', 'parent_id', 'owner_id', 'name', 'flag', 'created_at', ...(r % 2 === 0 ? ['amount'] : [])];
  const own = { owner_id: { _eq: USER_ID } };
  const filter = r % 3 === 0 && parentOf(i) !== null ? { _or: [own, { parent: own }] } : own;
  return { role: roleName(r), permission: { columns, filter, ...(r % 2 === 0 ? { allow_aggregations: true } : {}) } };
}

/** Role r may write to the tables whose number is r modulo 5. */
const writes = (i: number, r: number): boolean => i % 5 === r % 5;

/** The `tables` of the default source: every table, its relationships and the roles' permissions. */
export function scaleTables(tables: number, roles: number): TableEntry[] {
  const entries: TableEntry[] = [];
  for (let i = 1; i <= tables; i++) {
    const children = [1, 2, 3].map((k) => 3 * (i - 1) + 1 + k).filter((c) => c <= tables);
    const entry: TableEntry = { table: { schema: 'public', name: tableName(i) } };
    if (parentOf(i) !== null) entry.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }];
    if (children.length > 0) {
      entry.array_relationships = children.map((c) => ({
        name: childrenRelationship(c),
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: tableName(c) }, column: 'parent_id' } },
      }));
    }
    const all = Array.from({ length: roles }, (_, k) => k + 1);
    entry.select_permissions = all.map((r) => selectPermission(i, r));
    const writers = all.filter((r) => writes(i, r));
    if (writers.length > 0) {
      entry.insert_permissions = writers.map((r) => ({
        role: roleName(r),
        permission: { columns: ['parent_id', 'name', 'amount'], check: { owner_id: { _eq: USER_ID } }, set: { owner_id: USER_ID } },
      }));
      entry.update_permissions = writers.map((r) => ({
        role: roleName(r),
        permission: { columns: ['name', 'amount'], filter: { owner_id: { _eq: USER_ID } }, check: { amount: { _gte: 0 } } },
      }));
    }
    entries.push(entry);
  }
  return entries;
}

/** A table role r can read, with a parent and children when the tree has them. */
export function queryTableOf(r: number, tables: number): number {
  const candidate = 1 + ((r * 37) % Math.max(1, Math.floor(tables / 3)));
  return Math.min(candidate, tables);
}

/** Role r's first query: its table, the parent and the first child relationship. */
export function roleQuery(r: number, tables: number): string {
  const i = queryTableOf(r, tables);
  const parent = parentOf(i) === null ? '' : ' parent { id name }';
  const child = 3 * (i - 1) + 2;
  const children = child <= tables ? ` ${childrenRelationship(child)}(limit: 2) { id name }` : '';
  return `query { ${tableName(i)}(order_by: {id: asc}, limit: 5) { id name owner_id${parent}${children} } }`;
}
