/**
 * What one legacy data operation works on: the source and table it names, and the session's role
 * with its permissions on the tables of that source, as the reference engine's `askPermInfo` sees
 * them (admin has every column and no filter). Errors carry the reference's messages.
 */
import {
  ADMIN_ROLE,
  type ArgsObject,
  type BoolExpIR,
  buildPermissionFilter,
  type ColumnValueIR,
  EngineError,
  jsonInput,
  leafValue,
  LEGACY_PREFIX,
  type OperationContext,
  type QualifiedTable,
  quotedTable,
  type ResolvedSource,
  type ResolvedTable,
  tableKey,
  type Session,
  sourceNameArg,
  type TableRef,
} from '../../../core/sdk/index.js';

export const ARGS = '$.args';

export interface DmlContext {
  session: Session;
  role: string;
  admin: boolean;
  source: ResolvedSource;
  stringifyNumericTypes: boolean;
}

export type PermissionKind = 'select' | 'insert' | 'update' | 'delete';

/** A table as the role may use it for one kind of operation. */
export interface Access {
  table: ResolvedTable;
  ref: TableRef;
  /** Columns the permission allows (every column for admin). */
  columns: ReadonlySet<string>;
  /** Row filter (select, update, delete); null for admin or `{}`. */
  filter: BoolExpIR | null;
  /** Insert/update `check`; null when absent. */
  check: BoolExpIR | null;
  /** Insert/update presets. */
  presets: ColumnValueIR[];
  /** Select row cap. */
  limit: number | null;
  /** Inherited roles: columns the role sees only on some rows, with those rows' filter. */
  hidden?: ReadonlyMap<string, BoolExpIR>;
}

/** A column as the role reads it: null outside the rows it may see the column on (inherited roles). */
export function visibleColumn<T extends { name: string }>(access: Access, column: T): T & { visibleWhen?: BoolExpIR } {
  const cond = access.hidden?.get(column.name);
  return cond ? { ...column, visibleWhen: cond } : column;
}

/** A condition on the current table's columns, with the role's hidden cells reading null in it. */
export function withHiddenCells(access: Access, e: BoolExpIR): BoolExpIR {
  if (!access.hidden || access.hidden.size === 0) return e;
  switch (e.kind) {
    case 'and':
    case 'or':
      return { ...e, items: e.items.map((i) => withHiddenCells(access, i)) };
    case 'not':
      return { ...e, item: withHiddenCells(access, e.item) };
    case 'compare':
    case 'kindOperator':
    case 'compareColumn':
      return e.lhs.kind === 'column' ? { ...e, lhs: visibleColumn(access, e.lhs) } : e;
    default:
      return e;
  }
}

/** The source the operation names (`default` unless told), served by the Postgres kind. */
export async function dmlContext(ctx: OperationContext, args: ArgsObject): Promise<DmlContext> {
  const name = sourceNameArg(args, ARGS);
  // In a bulk after metadata changes this is the cache those changes produce; otherwise the live one.
  const cache = await ctx.rebuildPreview();
  const source = cache.sources.get(name);
  if (!source) throw new EngineError('not-exists', `source with name "${name}" does not exist`, { path: ARGS });
  const kind = ctx.dbKind(LEGACY_PREFIX);
  if (source.kind !== kind.kind) {
    throw new EngineError(
      'not-exists',
      `source with name "${name}" has backend type "${source.kind}" which does not match the expected type ${kind.kind}`,
      { path: ARGS },
    );
  }
  const role = ctx.session.role;
  return { session: ctx.session, role, admin: role === ADMIN_ROLE, source, stringifyNumericTypes: ctx.config.stringifyNumericTypes };
}

export function requireTable(dc: DmlContext, name: QualifiedTable, path: string): ResolvedTable {
  const t = dc.source.tables.get(tableKey(name));
  if (!t) throw new EngineError('not-exists', `table ${quotedTable(name)} does not exist`, { path });
  return t;
}

const filterIR = (table: ResolvedTable, json: unknown, tables: ResolvedSource['tables']): BoolExpIR | null => {
  if (json === undefined || json === null) return null;
  const built = buildPermissionFilter(table, json, tables);
  return built.kind === 'true' ? null : built;
};

function presetsIR(table: ResolvedTable, set: Record<string, unknown> | undefined): ColumnValueIR[] {
  return Object.entries(set ?? {}).flatMap(([name, value]) => {
    const column = table.columnsByName.get(name);
    if (!column) return [];
    const spec = { dbType: column.type, graphqlType: column.type, sessionVariables: true, nullable: true };
    return [{ column: name, value: leafValue(jsonInput(value), null, spec, `$.permission.set.${name}`) }];
  });
}

const columnSet = (table: ResolvedTable, list: string[] | '*' | undefined): Set<string> =>
  new Set(list === undefined || list === '*' ? table.columns.map((c) => c.name) : list);

/** The role's permission of one kind on a table, or null when it has none. */
export function accessOf(dc: DmlContext, table: ResolvedTable, kind: PermissionKind): Access | null {
  const base = { table, ref: { schema: table.table.schema, name: table.table.name } };
  if (dc.admin) return { ...base, columns: columnSet(table, '*'), filter: null, check: null, presets: [], limit: null };
  const tables = dc.source.tables;
  const perms = table.permissions;
  switch (kind) {
    case 'select': {
      const p = perms.select.get(dc.role);
      if (!p) return null;
      const cells = perms.cellFilters?.get(dc.role);
      const hidden = cells ? new Map([...cells].map(([c, f]) => [c, buildPermissionFilter(table, f, tables)] as const)) : undefined;
      return {
        ...base,
        columns: columnSet(table, p.columns),
        filter: filterIR(table, p.filter, tables),
        check: null,
        presets: [],
        limit: p.limit ?? null,
        ...(hidden ? { hidden } : {}),
      };
    }
    case 'insert': {
      const p = perms.insert.get(dc.role);
      if (!p) return null;
      const check = filterIR(table, p.check, tables);
      return { ...base, columns: columnSet(table, p.columns), filter: null, check, presets: presetsIR(table, p.set), limit: null };
    }
    case 'update': {
      const p = perms.update.get(dc.role);
      if (!p) return null;
      const check = filterIR(table, p.check, tables);
      return { ...base, columns: columnSet(table, p.columns), filter: filterIR(table, p.filter, tables), check, presets: presetsIR(table, p.set), limit: null };
    }
    case 'delete': {
      const p = perms.delete.get(dc.role);
      if (!p) return null;
      return { ...base, columns: new Set(), filter: filterIR(table, p.filter, tables), check: null, presets: [], limit: null };
    }
  }
}

/** `select on "author" for role "user" is not allowed. ` (sic), plus why the operation needs it. */
export function requireAccess(dc: DmlContext, table: ResolvedTable, kind: PermissionKind, path: string, why = ''): Access {
  const access = accessOf(dc, table, kind);
  if (access) return access;
  const message = `${kind} on ${quotedTable(table.table)} for role "${dc.role}" is not allowed. ${why}`;
  throw new EngineError('permission-denied', message, { path });
}

/** The select permission an update, delete or count needs to read rows with `where`. */
export const selectNeededFor = (op: 'update' | 'delete'): string =>
  `; "${op}" is only allowed if the role has "select" permission as "where" can't be used without "select" permission on the table`;

/** Checks a column against a permission's columns: `no such column exists : "x"` for admin. */
export function checkColumn(dc: DmlContext, access: Access, kind: PermissionKind, column: string, path: string): void {
  if (access.columns.has(column)) return;
  const message = dc.admin
    ? `no such column exists : "${column}"`
    : `role "${dc.role}" does not have permission to ${kind} column "${column}"`;
  throw new EngineError('permission-denied', message, { path });
}

/** After a permission check: the column must really be a column (`expecting a postgres column; ...`). */
export function requireColumn(table: ResolvedTable, name: string, why: string, path: string): void {
  if (table.columnsByName.has(name)) return;
  if (table.relationships.has(name)) {
    throw new EngineError('unexpected-payload', `expecting a postgres column; but, "${name}" is a relationship; ${why}`, { path });
  }
  throw new EngineError('not-exists', `column "${name}" does not exist`, { path });
}

/** The target table's select permission, needed to read through a relationship. */
export function relationshipAccess(dc: DmlContext, table: ResolvedTable, relName: string, path: string): Access {
  const rel = table.relationships.get(relName)!;
  const target = dc.source.tables.get(rel.target);
  const access = target ? accessOf(dc, target, 'select') : null;
  if (access) return access;
  const message = `role "${dc.role}" does not have permission to read relationship "${relName}"; no permission on table "${rel.target.replace(/^public\./, '')}"`;
  throw new EngineError('permission-denied', message, { path });
}
