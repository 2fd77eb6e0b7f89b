/**
 * Terse builders for hand-written IR in the compiler tests, and a runner that compiles, binds,
 * executes and parses a root field.
 */
import type {
  AggregateSelectIR,
  BoolExpIR,
  ComparisonOp,
  FieldIR,
  OrderByIR,
  OrderExprIR,
  RootFieldIR,
  SelectIR,
  TableRef,
  TypedValueIR,
} from '../../../../../core/graphql/ir.js';
import type { CompiledStatement } from '../../../../../core/db/contract.js';
import { bindValues, compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import type { FixtureDb } from './fixture-db.js';

export const T = (name: string): TableRef => ({ schema: 'public', name });

export const constant = (value: unknown, dbType: string, array?: boolean): TypedValueIR => ({
  value: { kind: 'const', value },
  dbType,
  ...(array ? { array } : {}),
});
export const variable = (name: string, dbType: string, array?: boolean, path: (string | number)[] = []): TypedValueIR => ({
  value: { kind: 'variable', name, path },
  dbType,
  ...(array ? { array } : {}),
});
export const session = (name: string, dbType: string): TypedValueIR => ({ value: { kind: 'session', name }, dbType });

export const cmp = (column: string, type: string, op: ComparisonOp, rhs: TypedValueIR): BoolExpIR => ({
  kind: 'compare',
  lhs: { kind: 'column', name: column, type },
  op,
  rhs,
});

export const field = (name: string, type: string, alias = name): FieldIR => ({ kind: 'column', alias, name, type });

export const byColumn = (name: string, direction: 'asc' | 'desc' = 'asc', nulls?: 'first' | 'last'): OrderByIR =>
  orderBy({ kind: 'column', name, type: 'unknown' }, direction, nulls);

export const orderBy = (expr: OrderExprIR, direction: 'asc' | 'desc' = 'asc', nulls?: 'first' | 'last'): OrderByIR => ({
  expr,
  direction,
  nulls: nulls ?? (direction === 'asc' ? 'last' : 'first'),
});

export function select(table: string, fields: FieldIR[], extra: Partial<SelectIR> = {}): SelectIR {
  return {
    from: T(table),
    where: null,
    permissionFilter: null,
    orderBy: [],
    distinctOn: [],
    limit: null,
    offset: null,
    permissionLimit: null,
    fields,
    ...extra,
  };
}

export function aggregateSelect(
  table: string,
  fields: AggregateSelectIR['fields'],
  extra: Partial<AggregateSelectIR> = {},
): AggregateSelectIR {
  return {
    from: T(table),
    where: null,
    permissionFilter: null,
    orderBy: [],
    distinctOn: [],
    limit: null,
    offset: null,
    permissionLimit: null,
    fields,
    ...extra,
  };
}

export const listField = (sel: SelectIR): RootFieldIR => ({ kind: 'select', source: 'default', select: sel, single: false });
export const singleField = (sel: SelectIR): RootFieldIR => ({ kind: 'select', source: 'default', select: sel, single: true });
export const aggregateField = (agg: AggregateSelectIR): RootFieldIR => ({ kind: 'aggregate', source: 'default', aggregate: agg });

/** What the executor does: constants as they are, variables looked up along their path. */
export function resolveParams(params: readonly TypedValueIR[], variables: Record<string, unknown>): unknown[] {
  return params.map((p) => {
    const v = p.value;
    if (v.kind === 'const') return v.value;
    if (v.kind === 'session') throw new Error('session values are never parameters');
    let cur: unknown = variables[v.name];
    for (const step of v.path) cur = cur === null || cur === undefined ? undefined : (cur as Record<string | number, unknown>)[step];
    return cur;
  });
}

export interface RunOptions {
  variables?: Record<string, unknown>;
  session?: Record<string, string>;
  stringifyNumericTypes?: boolean;
}

export async function execute(db: FixtureDb, st: CompiledStatement, opts: RunOptions = {}): Promise<string> {
  const values = [JSON.stringify(opts.session ?? {}), ...bindValues(st.params, resolveParams(st.params, opts.variables ?? {}))];
  const r = await db.client.query({ name: st.name, text: st.text, values });
  if (r.rows.length !== 1 || r.fields.length !== 1) throw new Error('expected one row with one column');
  const text = r.rows[0].root as unknown;
  if (typeof text !== 'string') throw new Error('expected JSON text');
  return text;
}

/** Compile, run, parse. */
export async function run(db: FixtureDb, ir: RootFieldIR, opts: RunOptions = {}): Promise<unknown> {
  const st = compileRootField(ir, { stringifyNumericTypes: opts.stringifyNumericTypes ?? false });
  return JSON.parse(await execute(db, st, opts));
}

/** Ids of the rows a filter on `table` selects, through the compiler, sorted. */
export async function idsWhere(db: FixtureDb, table: string, where: BoolExpIR, opts: RunOptions & { permissionFilter?: BoolExpIR } = {}): Promise<number[]> {
  const sel = select(table, [field('id', 'int4')], { where, permissionFilter: opts.permissionFilter ?? null, orderBy: [byColumn('id')] });
  const rows = (await run(db, listField(sel), opts)) as Array<{ id: number }>;
  return rows.map((r) => r.id);
}

/** Ids from plain SQL, sorted. */
export async function idsSql(db: FixtureDb, sql: string, values?: unknown[]): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(sql, values);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}
