/**
 * Role narrowing for mutations: the `MutationView` of every table the role may insert into,
 * update or delete from. Admin may write every column of every writable table; any other role
 * only through its insert/update/delete permissions, never the columns a permission presets
 * (their values come from the permission, as in the reference engine, where `ipiCols` and
 * `tableUpdateColumns` leave preset columns out).
 */
import type { ResolvedSource, ResolvedTable } from '../../../schema-cache/model.js';
import type { CatalogColumn } from '../../../db/catalog.js';
import type { BoolExpIR } from '../../ir.js';
import type { ColumnValueIR } from '../../ir-mutation.js';
import { buildPermissionFilter } from '../../plan/bool-exp.js';
import { jsonInput, leafValue } from '../../plan/input.js';
import { tableRef, type ColumnView, type TableView } from '../../plan/view.js';
import type {
  ColumnAccess,
  InsertRelationshipView,
  MutationTypeNames,
  MutationView,
  UniqueConstraintView,
} from '../../plan/mutation/view.js';
import { ADMIN_ROLE } from '../../../auth/session.js';
import { columnView } from '../views.js';
import { tableTypeNames, type Naming } from '../naming.js';

const GRAPHQL_NAME_RE = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function mutationTypeNames(naming: Naming, identifier: string): MutationTypeNames {
  const t = (suffix: string): string => naming.type(`${identifier}${suffix}`);
  return {
    insertInput: t('_insert_input'),
    objRelInsertInput: t('_obj_rel_insert_input'),
    arrRelInsertInput: t('_arr_rel_insert_input'),
    onConflict: t('_on_conflict'),
    constraint: t('_constraint'),
    updateColumn: t('_update_column'),
    setInput: t('_set_input'),
    incInput: t('_inc_input'),
    opInput: (op) => t(`${op}_input`),
    pkColumnsInput: t('_pk_columns_input'),
    updates: t('_updates'),
    mutationResponse: t('_mutation_response'),
  };
}

// Generated and identity-always columns reject explicit values.
const writable = (c: CatalogColumn): boolean => !c.isGenerated && !(c.isIdentity && c.identityGeneration === 'always');

function access(columns: ColumnView[]): ColumnAccess {
  return { columns, byField: new Map(columns.map((c) => [c.field, c] as const)) };
}

/** Columns allowed by a permission's column list, minus preset ones. */
function permitted(all: ColumnView[], list: string[] | '*' | undefined, presets: Record<string, unknown> | undefined): ColumnView[] {
  const allowed = list === undefined || list === '*' ? null : new Set(list);
  const preset = new Set(Object.keys(presets ?? {}));
  return all.filter((c) => (allowed === null || allowed.has(c.column.name)) && !preset.has(c.column.name));
}

/** A view with no fields, for tables the role writes without seeing (`where` gets only _and/_or/_not). */
function blindView(source: ResolvedSource, table: ResolvedTable, naming: Naming): TableView {
  return {
    source: source.name,
    table,
    ref: tableRef(table),
    naming,
    names: { ...tableTypeNames(naming, table.identifier), object: table.typeName },
    columns: [],
    columnsByField: new Map(),
    relationships: [],
    relationshipsByField: new Map(),
    aggregatesByField: new Map(),
    computedFields: [],
    computedFieldsByField: new Map(),
    access: { filter: null, limit: null, allowAggregations: false, queryRootFields: [], subscriptionRootFields: [] },
    sourceTables: source.tables,
    permissionFilter: () => null,
  };
}

/** Built on first use and kept: the IR of a permission's filter/check (null when absent or `{}`). */
function lazyFilter(table: ResolvedTable, json: unknown, tables: ResolvedSource['tables'], path: string): () => BoolExpIR | null {
  let built: BoolExpIR | null | undefined;
  return () => {
    if (built === undefined) {
      const f = json === undefined || json === null ? null : buildPermissionFilter(table, json, tables, path);
      built = f === null || f.kind === 'true' ? null : f;
    }
    return built;
  };
}

/** Preset values: strings naming a session variable read it from the session, others are constants. */
function lazyPresets(table: ResolvedTable, set: Record<string, unknown> | undefined, path: string): () => ColumnValueIR[] {
  let built: ColumnValueIR[] | undefined;
  return () => {
    built ??= Object.entries(set ?? {}).flatMap(([name, value]) => {
      const column = table.columnsByName.get(name);
      if (!column) return [];
      const spec = { dbType: column.type, graphqlType: column.type, sessionVariables: true, nullable: true };
      return [{ column: name, value: leafValue(jsonInput(value), null, spec, `${path}.${name}`) }];
    });
    return built;
  };
}

function constraintsOf(table: ResolvedTable): UniqueConstraintView[] {
  const c = table.catalog;
  const byName = new Map<string, UniqueConstraintView>();
  for (const k of [...(c.primaryKey ? [c.primaryKey] : []), ...c.uniqueConstraints]) {
    // A name that is not a GraphQL name cannot be an enum value; the constraint is left out.
    if (GRAPHQL_NAME_RE.test(k.name) && !byName.has(k.name)) byName.set(k.name, { name: k.name, columns: k.columns });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function makeView(
  source: ResolvedSource,
  table: ResolvedTable,
  role: string,
  naming: Naming,
  select: TableView | null,
): MutationView | null {
  const admin = role === ADMIN_ROLE;
  const perms = table.permissions;
  // A backend-only permission serves only trusted backends (the reference's "backend" scenario,
  // admin secret plus a header); this engine builds the frontend schema only, so it is left out.
  const frontend = <P extends { backend_only?: boolean }>(p: P | undefined): P | undefined => (p?.backend_only ? undefined : p);
  const ins = admin ? null : frontend(perms.insert.get(role));
  const upd = admin ? null : frontend(perms.update.get(role));
  const del = admin ? null : frontend(perms.delete.get(role));
  const cat = table.catalog;
  const mayInsert = cat.insertable && (admin || ins !== undefined);
  const mayUpdate = cat.updatable && (admin || upd !== undefined);
  const mayDelete = cat.deletable && (admin || del !== undefined);
  if (!mayInsert && !mayUpdate && !mayDelete) return null;

  const all = table.columns
    .filter((c) => writable(c.catalog))
    .map((c) => columnView(source, table, c, naming))
    .filter((c): c is ColumnView => c !== null);
  const pk = table.primaryKey;
  const inputs = select?.inputs ?? select;
  const pkColumns = inputs && pk && pk.length > 0 ? pk.map((n) => inputs.columns.find((c) => c.column.name === n)) : null;
  const path = `$.permission`;
  return {
    source: source.name,
    table,
    ref: tableRef(table),
    naming,
    names: mutationTypeNames(naming, table.identifier),
    select,
    filter: inputs ?? blindView(source, table, naming),
    insert: mayInsert ? access(admin ? all : permitted(all, ins?.columns, ins?.set)) : null,
    update: mayUpdate ? access(admin ? all : permitted(all, upd?.columns, upd?.set)) : null,
    canDelete: mayDelete,
    insertRelationships: new Map(),
    constraints: constraintsOf(table),
    primaryKey: pkColumns && pkColumns.every((c) => c !== undefined) ? (pkColumns as ColumnView[]) : null,
    insertCheck: lazyFilter(table, ins?.check, source.tables, `${path}.check`),
    insertPresets: lazyPresets(table, ins?.set, `${path}.set`),
    updateFilter: lazyFilter(table, upd?.filter, source.tables, `${path}.filter`),
    updateCheck: lazyFilter(table, upd?.check, source.tables, `${path}.check`),
    updatePresets: lazyPresets(table, upd?.set, `${path}.set`),
    deleteFilter: lazyFilter(table, del?.filter, source.tables, `${path}.filter`),
  };
}

/** Every table the role may write in this source, keyed by table key. */
export function buildMutationViews(
  source: ResolvedSource,
  role: string,
  naming: Naming,
  selectViews: ReadonlyMap<string, TableView>,
): Map<string, MutationView> {
  const views = new Map<string, MutationView>();
  for (const table of source.tables.values()) {
    const v = makeView(source, table, role, naming, selectViews.get(table.key) ?? null);
    if (v) views.set(table.key, v);
  }
  // Nested inserts go through relationships to tables the role may insert into. A target must
  // have a column to give: an input type without fields is not valid GraphQL.
  for (const v of views.values()) {
    if (!v.insert) continue;
    const rels = v.insertRelationships as Map<string, InsertRelationshipView>;
    for (const rel of v.table.relationships.values()) {
      const target = views.get(rel.target);
      if (!target?.insert || target.insert.columns.length === 0) continue;
      const field = naming.relationshipField(rel.name);
      rels.set(field, { rel, field, target });
    }
  }
  return views;
}
