/**
 * Role narrowing: which tables, columns and relationships one role sees, as `TableView`s.
 * Admin sees everything. Any other role sees a table only through its select permission, only
 * the permitted columns, and a relationship only when the role may select from its target.
 */
import type { ResolvedColumn, ResolvedRelationship, ResolvedSource, ResolvedTable } from '../../schema-cache/model.js';
import type { BoolExpIR } from '../ir.js';
import type { BoolExpJson } from '../../metadata/types.js';
import { buildPermissionFilter } from '../plan/bool-exp.js';
import { tableRef, type ColumnView, type RelationshipView, type TableAccess, type TableView } from '../plan/view.js';
import { tableTypeNames, type Naming } from './naming.js';
import { ADMIN_ROLE } from '../../auth/session.js';
import { computedFieldViews } from './function-views.js';
import type { ComputedFieldView } from '../plan/view.js';
import { canonicalJson } from '../../json-type.js';

const GRAPHQL_NAME_RE = /^[_A-Za-z][_0-9A-Za-z]*$/;

function accessFor(
  table: ResolvedTable,
  role: string,
): { access: TableAccess; columns: ResolvedColumn[]; cellFilters?: ReadonlyMap<string, BoolExpJson> } | null {
  if (role === ADMIN_ROLE) {
    return {
      access: { filter: null, limit: null, allowAggregations: true, queryRootFields: null, subscriptionRootFields: null },
      columns: table.columns,
    };
  }
  const perm = table.permissions.select.get(role);
  if (!perm) return null;
  const allowed = perm.columns === '*' ? null : new Set(perm.columns);
  return {
    access: {
      filter: perm.filter,
      limit: perm.limit ?? null,
      allowAggregations: perm.allow_aggregations ?? false,
      queryRootFields: perm.query_root_fields ?? null,
      subscriptionRootFields: perm.subscription_root_fields ?? null,
    },
    columns: allowed ? table.columns.filter((c) => allowed.has(c.name)) : table.columns,
    ...(table.permissions.cellFilters?.has(role) ? { cellFilters: table.permissions.cellFilters.get(role)! } : {}),
  };
}

/** Inherited roles: the columns some parent hides read null outside the rows of the parents showing them. */
function withCellFilters(
  columns: ColumnView[],
  table: ResolvedTable,
  filters: ReadonlyMap<string, BoolExpJson>,
  tables: ReadonlyMap<string, ResolvedTable>,
): ColumnView[] {
  return columns.map((c) => {
    const json = filters.get(c.column.name);
    if (json === undefined) return { ...c, forceNullable: true };
    let built: BoolExpIR | undefined;
    return { ...c, forceNullable: true, visibleWhen: () => (built ??= buildPermissionFilter(table, json, tables)) };
  });
}

/**
 * What is the same for every role, made once per Naming (one per customization object, namingOf):
 * a column's view (at 1,000 tables and 20 roles these were a tenth of the heap), the column lists
 * roles see by their column names, and a table's type names and reference.
 */
interface RoleFreeParts {
  columns: WeakMap<ResolvedColumn, ColumnView | null>;
  lists: WeakMap<ResolvedTable, Map<string, VisibleColumns>>;
  tables: WeakMap<ResolvedTable, Pick<TableView, 'names' | 'ref'>>;
}

const roleFree = new WeakMap<Naming, RoleFreeParts>();

function roleFreeParts(naming: Naming): RoleFreeParts {
  let parts = roleFree.get(naming);
  if (!parts) roleFree.set(naming, (parts = { columns: new WeakMap(), lists: new WeakMap(), tables: new WeakMap() }));
  return parts;
}

/** Not kept for columns of an enum table's type: their values are the enum table's rows. */
export function columnView(source: ResolvedSource, table: ResolvedTable, column: ResolvedColumn, naming: Naming): ColumnView | null {
  if (column.enumTable) return makeColumnView(source, table, column, naming);
  const kept = roleFreeParts(naming).columns;
  let view = kept.get(column);
  if (view === undefined) kept.set(column, (view = makeColumnView(source, table, column, naming)));
  return view;
}

function makeColumnView(source: ResolvedSource, table: ResolvedTable, column: ResolvedColumn, naming: Naming): ColumnView | null {
  const field = naming.columnField(table, column);
  if (!GRAPHQL_NAME_RE.test(field)) return null;
  const info = table.scalars.info(column.type, {
    ...(column.catalog.elementType ? { elementType: column.catalog.elementType } : {}),
    typeKind: column.catalog.typeKind,
  });
  const enumTable = column.enumTable ? source.tables.get(column.enumTable) : undefined;
  if (enumTable?.enumValues && enumTable.enumValues.length > 0) {
    const values = new Map<string, string>();
    const descriptions = new Map<string, string>();
    for (const v of enumTable.enumValues) {
      const name = naming.enumValue(v.value);
      if (!GRAPHQL_NAME_RE.test(name)) continue;
      values.set(name, v.value);
      if (v.description) descriptions.set(name, v.description);
    }
    if (values.size > 0) {
      const graphqlType = tableTypeNames(naming, enumTable.identifier).enumType;
      return { column, field, info, graphqlType, enumValues: values, enumDescriptions: descriptions };
    }
  }
  // A type whose name is not a GraphQL name cannot be exposed; the column is left out.
  if (!info.name) return null;
  return { column, field, info, graphqlType: info.name };
}

interface Candidate extends VisibleColumns {
  table: ResolvedTable;
  access: TableAccess;
}

interface VisibleColumns {
  columns: ColumnView[];
  columnsByField: Map<string, ColumnView>;
}

const byField = (columns: readonly ColumnView[]): Map<string, ColumnView> => new Map(columns.map((col) => [col.field, col] as const));

function viewColumns(source: ResolvedSource, table: ResolvedTable, columns: readonly ResolvedColumn[], naming: Naming): VisibleColumns {
  const views = columns.map((c) => columnView(source, table, c, naming)).filter((c): c is ColumnView => c !== null);
  return { columns: views, columnsByField: byField(views) };
}

/** The columns a role sees, kept per list of column names (roles seeing alike share one). */
function visibleColumns(source: ResolvedSource, table: ResolvedTable, columns: readonly ResolvedColumn[], naming: Naming): VisibleColumns {
  // An enum table's rows may change under the same table object: such lists are made afresh.
  if (columns.some((c) => c.enumTable)) return viewColumns(source, table, columns, naming);
  const kept = roleFreeParts(naming).lists;
  let lists = kept.get(table);
  if (!lists) kept.set(table, (lists = new Map()));
  const key = columns.length === table.columns.length ? '*' : columns.map((c) => c.name).join('\u0000');
  let seen = lists.get(key);
  if (!seen) lists.set(key, (seen = viewColumns(source, table, columns, naming)));
  return seen;
}

export interface TableViewOptions {
  /** `--experimental-features optimise_permission_filters`: mark relationships whose target filter the parent implies. */
  optimisePermissionFilters?: boolean;
}

/** Every table the role may select from in this source, keyed by table key. */
export function buildTableViews(source: ResolvedSource, role: string, naming: Naming, options: TableViewOptions = {}): Map<string, TableView> {
  const candidates = new Map<string, Candidate>();
  for (const table of source.tables.values()) {
    const a = accessFor(table, role);
    if (!a) continue;
    const viewed = visibleColumns(source, table, a.columns, naming);
    if (a.cellFilters) {
      const columns = withCellFilters(viewed.columns, table, a.cellFilters, source.tables);
      candidates.set(table.key, { table, access: a.access, columns, columnsByField: byField(columns) });
    } else {
      candidates.set(table.key, { table, access: a.access, ...viewed });
    }
  }
  // A table with no column and no usable relationship has no field to select: drop it, and again
  // for the tables that only reached it.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [key, c] of candidates) {
      const hasRelationship = [...c.table.relationships.values()].some((r) => candidates.has(r.target));
      if (c.columns.length === 0 && !hasRelationship) {
        candidates.delete(key);
        changed = true;
      }
    }
  }

  const views = new Map<string, TableView>();
  for (const [key, c] of candidates) views.set(key, makeView(source, c, naming));
  for (const [key, c] of candidates) linkRelationships(views.get(key)!, c.table, views, naming, options.optimisePermissionFilters === true);
  for (const [key, c] of candidates) {
    linkComputedFields(views.get(key)!, c.table, role, views);
    const cells = c.table.permissions.cellFilters?.get(role);
    if (cells) hideComputedCells(views.get(key)!, c.table, cells, source.tables);
  }
  return views;
}

type MutableView = TableView & {
  relationships: RelationshipView[];
  relationshipsByField: ReadonlyMap<string, RelationshipView>;
  aggregatesByField: ReadonlyMap<string, RelationshipView>;
  computedFields: ComputedFieldView[];
  computedFieldsByField: ReadonlyMap<string, ComputedFieldView>;
};

/** Shared by every view with none of these (most have no computed field, many no aggregate): never written. */
const NO_RELATIONSHIPS: ReadonlyMap<string, RelationshipView> = new Map();
const NO_COMPUTED_FIELDS: ReadonlyMap<string, ComputedFieldView> = new Map();

function partsOf(table: ResolvedTable, naming: Naming): Pick<TableView, 'names' | 'ref'> {
  const kept = roleFreeParts(naming).tables;
  let parts = kept.get(table);
  if (!parts) {
    // The schema cache resolved the row type's name; the other names derive from the identifier alike.
    parts = { names: { ...tableTypeNames(naming, table.identifier), object: table.typeName }, ref: tableRef(table) };
    kept.set(table, parts);
  }
  return parts;
}

function makeView(source: ResolvedSource, c: Candidate, naming: Naming): MutableView {
  let filter: BoolExpIR | null | undefined;
  const { names, ref } = partsOf(c.table, naming);
  return {
    source: source.name,
    table: c.table,
    ref,
    naming,
    names,
    columns: c.columns,
    columnsByField: c.columnsByField,
    relationships: [],
    relationshipsByField: NO_RELATIONSHIPS,
    aggregatesByField: NO_RELATIONSHIPS,
    computedFields: [],
    computedFieldsByField: NO_COMPUTED_FIELDS,
    access: c.access,
    sourceTables: source.tables,
    distinctOn: source.capabilities === undefined || source.capabilities.distinctOn === true,
    permissionFilter() {
      if (filter === undefined) {
        const f = c.access.filter;
        const built = f === null ? null : buildPermissionFilter(c.table, f, source.tables);
        filter = built === null || built.kind === 'true' ? null : built;
      }
      return filter;
    },
  };
}

function linkRelationships(view: TableView, table: ResolvedTable, views: Map<string, TableView>, naming: Naming, optimise: boolean): void {
  const v = view as MutableView;
  let byField: Map<string, RelationshipView> | undefined;
  let aggregates: Map<string, RelationshipView> | undefined;
  for (const rel of table.relationships.values()) {
    const target = views.get(rel.target);
    if (!target) continue;
    const aggregateField =
      rel.kind === 'array' && target.access.allowAggregations ? naming.field(`${rel.name}_aggregate`) : null;
    const rv: RelationshipView = { rel, field: naming.relationshipField(rel.name), aggregateField, target };
    if (optimise && filterImpliedByParent(view, rel, target)) rv.targetFilterImplied = true;
    v.relationships.push(rv);
    (byField ??= new Map()).set(rv.field, rv);
    if (aggregateField) (aggregates ??= new Map()).set(aggregateField, rv);
  }
  if (byField) v.relationshipsByField = byField;
  if (aggregates) v.aggregatesByField = aggregates;
}

/**
 * Whether the target's filter is exactly `{<back>: F}` where `back` leads from the target to this
 * table on the inverse of `rel`'s column pairs and F is this table's own filter: the row joined
 * from is then one such row, so the EXISTS the filter would add is always true. Only that one
 * shape, as the reference matches it; anything else keeps the filter.
 */
function filterImpliedByParent(parent: TableView, rel: ResolvedRelationship, target: TableView): boolean {
  const filter = target.access.filter;
  if (filter === null || parent.access.filter === null || typeof filter !== 'object' || Array.isArray(filter)) return false;
  const keys = Object.keys(filter);
  if (keys.length !== 1) return false;
  const back = target.table.relationships.get(keys[0]!);
  if (!back || back.target !== parent.table.key) return false;
  const pairs = (m: ReadonlyArray<readonly [string, string]>): string => JSON.stringify(m.map(([a, b]) => `${a}\u0000${b}`).sort());
  if (pairs(back.mapping) !== pairs(rel.mapping.map(([a, b]) => [b, a] as const))) return false;
  return canonicalJson((filter as Record<string, unknown>)[keys[0]!]) === canonicalJson(parent.access.filter);
}

/** Inherited roles: a scalar computed field some parent hides reads null where the column would. */
function hideComputedCells(
  view: TableView,
  table: ResolvedTable,
  filters: ReadonlyMap<string, BoolExpJson>,
  tables: ReadonlyMap<string, ResolvedTable>,
): void {
  const v = view as MutableView;
  v.computedFields = v.computedFields.map((c) => {
    const json = c.scalar ? filters.get(c.cf.name) : undefined;
    if (json === undefined) return c;
    let built: BoolExpIR | undefined;
    return { ...c, visibleWhen: () => (built ??= buildPermissionFilter(table, json, tables)) };
  });
  v.computedFieldsByField = computedByField(v.computedFields);
}

const computedByField = (fields: readonly ComputedFieldView[]): ReadonlyMap<string, ComputedFieldView> =>
  fields.length === 0 ? NO_COMPUTED_FIELDS : new Map(fields.map((c) => [c.field, c] as const));

function linkComputedFields(view: TableView, table: ResolvedTable, role: string, views: Map<string, TableView>): void {
  if (!table.computedFields) return;
  const v = view as MutableView;
  v.computedFields = computedFieldViews(table, role, views);
  v.computedFieldsByField = computedByField(v.computedFields);
}
