/**
 * Joins to a table of another source (`to_source`). The field is the target table's rows as the
 * role may read them (its select permission applies), with the usual select arguments. A batch
 * of parent rows is ONE statement on the target source: the join columns filtered with `_in`
 * over the batch's values (bound as parameters); rows come back ordered, are grouped by join key
 * in the engine, and `limit`/`offset`, `distinct_on` and the role's row cap apply per parent row.
 * Array joins also have `<rel>_aggregate` (sourceAggregateJoin).
 *
 * Keys and rows stay lossless: parent keys arrive as `parseLossless` values (a `bigint` beyond
 * 2^53 as a marked number), are bound as their exact digits, and the target's answer is parsed
 * the same way, so its `bigint` and `numeric` values reach the client digit for digit.
 */
import {
  and,
  bindParams,
  buildAggregateSelect,
  buildSelect,
  EngineError,
  fillJoins,
  joinShapeOfQuery,
  parseLossless,
  tableKey,
  unmarkLossless,
  type BoolExpIR,
  type CollectedField,
  type CompileOptions,
  type ExternalContext,
  type FieldIR,
  type PlanContext,
  type RemoteJoin,
  type RootFieldIR,
  type SchemaKit,
  type SourceConnection,
  type TableView,
  type TypedValueIR,
} from '../../../core/sdk/index.js';
import { GraphQLList, GraphQLNonNull, type GraphQLFieldConfig } from 'graphql';
import type { JoinTarget } from './definition.js';

type SourceTarget = Extract<JoinTarget, { kind: 'source' }>;

const JOIN_ALIAS = (i: number): string => `__svc_join_${i}`;

/**
 * A join value as text both sides agree on: a parent's `bigint` and the target's (number, marked
 * number, or string under --stringify-numeric-types) compare by digits; a decimal's trailing
 * fractional zeros (the columns' scales may differ) do not count.
 */
function keyText(v: unknown): string {
  const s = String(unmarkLossless(v));
  return /^-?\d+\.\d*$/.test(s) ? s.replace(/\.?0+$/, '') : s;
}

/** The distinct non-null join values of the parents for column `column`. */
function keyValues(keys: ReadonlyArray<Readonly<Record<string, unknown>>>, column: string): unknown[] {
  const seen = new Map<string, unknown>();
  for (const k of keys) {
    const v = k[column];
    if (v === null || v === undefined) continue;
    const t = keyText(v);
    if (!seen.has(t)) seen.set(t, unmarkLossless(v));
  }
  return [...seen.values()];
}
const KEYS_VARIABLE = (i: number): string => `__svc_join_keys_${i}`;

export function sourceFieldConfig(kit: SchemaKit, target: SourceTarget): GraphQLFieldConfig<unknown, unknown> | null {
  const view = targetView(kit, target);
  if (!view || !target.mapping.every(([, to]) => view.table.columnsByName.has(to))) return null;
  const type = kit.objectType(view);
  if (target.relationshipType === 'object') return { type };
  return { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))), args: kit.selectArgs(view) };
}

export function targetView(kit: SchemaKit, target: SourceTarget): TableView | undefined {
  return kit.viewsOf(target.source).get(tableKey(target.table));
}

function pagingValue(v: TypedValueIR | null, variables: Readonly<Record<string, unknown>>): number | null {
  if (!v) return null;
  const raw = v.value.kind === 'const' ? v.value.value : v.value.kind === 'variable' ? variables[v.value.name] : null;
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new EngineError('not-supported', 'unexpected negative value', { path: '$' });
  return n;
}

/** The join of one selection of a `to_source` relationship field. */
export function sourceJoin(
  view: TableView,
  target: SourceTarget,
  connection: SourceConnection,
  field: CollectedField,
  ctx: PlanContext,
  path: string,
  options: CompileOptions,
): RemoteJoin {
  const select = buildSelect(view, field, ctx, path);
  const limit = select.limit;
  const offset = select.offset;
  const cap = select.permissionLimit;
  const columns = target.mapping.map(([, to]) => view.table.columnsByName.get(to)!);
  const filters: BoolExpIR[] = columns.map((c, i) => ({
    kind: 'compare',
    lhs: { kind: 'column', name: c.name, type: c.type },
    op: '_in',
    rhs: { value: { kind: 'variable', name: KEYS_VARIABLE(i), path: [] }, dbType: c.type, array: true },
  }));
  const joined: FieldIR[] = columns.map((c, i) => ({ kind: 'column', alias: JOIN_ALIAS(i), name: c.name, type: c.type }));
  const ir: RootFieldIR = {
    kind: 'select',
    source: target.source,
    single: false,
    select: {
      ...select,
      where: and([...(select.where ? [select.where] : []), ...filters]),
      limit: null,
      offset: null,
      permissionLimit: null,
      // distinct_on applies per parent row: the join columns lead it (and so the ordering).
      distinctOn: select.distinctOn.length > 0 ? [...columns.map((c) => c.name), ...select.distinctOn] : [],
      fields: [...select.fields, ...joined],
    },
  };
  const statement = connection.compileQuery(ir, options);
  const nested = joinShapeOfQuery(ir);
  const own = target.mapping.map(([from]) => from);
  return {
    async resolve(keys, ext: ExternalContext): Promise<unknown[]> {
      const tuple = (get: (i: number) => unknown): string | null => {
        const parts = own.map((_, i) => get(i));
        return parts.some((p) => p === null || p === undefined) ? null : JSON.stringify(parts.map(keyText));
      };
      const parentKeys = keys.map((k) => tuple((i) => k[own[i]!]));
      const wanted = parentKeys.filter((k): k is string => k !== null);
      const empty = target.relationshipType === 'object' ? null : [];
      if (wanted.length === 0) return keys.map((_, i) => (parentKeys[i] === null ? null : empty));
      const variables: Record<string, unknown> = { ...ext.variables };
      own.forEach((_, i) => (variables[KEYS_VARIABLE(i)] = keyValues(keys, own[i]!)));
      const bound = bindParams(statement.params, variables, ext.session);
      const rows = parseLossless(await connection.runQuery(statement, JSON.stringify(ext.session.variables), bound, ext.deadline !== undefined ? { deadline: ext.deadline } : undefined)) as Array<Record<string, unknown>>;
      if (nested) await fillJoins(rows, nested, ext);
      const groups = new Map<string, Array<Record<string, unknown>>>();
      for (const row of rows) {
        const k = tuple((i) => row[JOIN_ALIAS(i)]);
        for (let i = 0; i < columns.length; i++) delete row[JOIN_ALIAS(i)];
        if (k === null) continue;
        const g = groups.get(k);
        if (g) g.push(row);
        else groups.set(k, [row]);
      }
      const from = pagingValue(offset, ext.variables) ?? 0;
      const n = Math.min(pagingValue(limit, ext.variables) ?? Infinity, cap ?? Infinity);
      return parentKeys.map((k) => {
        if (k === null) return null;
        const found = groups.get(k) ?? [];
        if (target.relationshipType === 'object') return found[0] ?? null;
        return found.slice(from, from + n);
      });
    },
  };
}

/** `<rel>_aggregate` of an array join to another source, when the role may aggregate the target. */
export function sourceAggregateConfig(kit: SchemaKit, target: SourceTarget): GraphQLFieldConfig<unknown, unknown> | null {
  const view = targetView(kit, target);
  if (target.relationshipType !== 'array' || !view || !view.access.allowAggregations) return null;
  if (!target.mapping.every(([, to]) => view.table.columnsByName.has(to))) return null;
  return { type: new GraphQLNonNull(kit.aggregateType(view)), args: kit.selectArgs(view) };
}

/**
 * The join of one selection of `<rel>_aggregate`: ONE statement for the batch. Its rows are the
 * distinct join keys present in the target (under the role's filter), each with the aggregate of
 * its own rows (the target joined to itself on the join columns, where the client's arguments
 * apply). Keys with no row get the aggregate of no rows, from a second statement run only then.
 */
export function sourceAggregateJoin(
  view: TableView,
  target: SourceTarget,
  connection: SourceConnection,
  field: CollectedField,
  ctx: PlanContext,
  path: string,
  options: CompileOptions,
): RemoteJoin {
  const aggregate = buildAggregateSelect(view, field, ctx, path);
  const columns = target.mapping.map(([, to]) => view.table.columnsByName.get(to)!);
  const keysIn = (suffix: string): BoolExpIR[] =>
    columns.map((c, i) => ({
      kind: 'compare',
      lhs: { kind: 'column', name: c.name, type: c.type },
      op: '_in',
      rhs: { value: { kind: 'variable', name: `${KEYS_VARIABLE(i)}${suffix}`, path: [] }, dbType: c.type, array: true },
    }));
  const carrier: RootFieldIR = {
    kind: 'select',
    source: target.source,
    single: false,
    select: {
      from: view.ref,
      where: and(keysIn('')),
      permissionFilter: view.permissionFilter(),
      orderBy: [],
      distinctOn: columns.map((c) => c.name),
      limit: null,
      offset: null,
      permissionLimit: null,
      fields: [
        ...columns.map((c, i): FieldIR => ({ kind: 'column', alias: JOIN_ALIAS(i), name: c.name, type: c.type })),
        { kind: 'arrayAggregate', alias: AGGREGATE_ALIAS, mapping: columns.map((c) => [c.name, c.name]), aggregate },
      ],
    },
  };
  const empty: RootFieldIR = {
    kind: 'aggregate',
    source: target.source,
    aggregate: { ...aggregate, where: and([...(aggregate.where ? [aggregate.where] : []), ...keysIn('_none')]) },
  };
  const statement = connection.compileQuery(carrier, options);
  const emptyStatement = connection.compileQuery(empty, options);
  const nested = joinShapeOfQuery(carrier);
  const own = target.mapping.map(([from]) => from);
  return {
    async resolve(keys, ext: ExternalContext): Promise<unknown[]> {
      const tuple = (get: (i: number) => unknown): string | null => {
        const parts = own.map((_, i) => get(i));
        return parts.some((p) => p === null || p === undefined) ? null : JSON.stringify(parts.map(keyText));
      };
      const parentKeys = keys.map((k) => tuple((i) => k[own[i]!]));
      const run = ext.deadline !== undefined ? { deadline: ext.deadline } : undefined;
      const sessionJson = JSON.stringify(ext.session.variables);
      const variables: Record<string, unknown> = { ...ext.variables };
      own.forEach((_, i) => (variables[KEYS_VARIABLE(i)] = keyValues(keys, own[i]!)));
      const byKey = new Map<string, unknown>();
      if (parentKeys.some((k) => k !== null)) {
        const rows = parseLossless(await connection.runQuery(statement, sessionJson, bindParams(statement.params, variables, ext.session), run)) as Array<Record<string, unknown>>;
        if (nested) await fillJoins(rows, nested, ext);
        for (const row of rows) {
          const k = tuple((i) => row[JOIN_ALIAS(i)]);
          if (k !== null) byKey.set(k, row[AGGREGATE_ALIAS]);
        }
      }
      const missing = parentKeys.filter((k): k is string => k !== null && !byKey.has(k));
      let none: unknown = null;
      if (missing.length > 0) {
        // Keys no visible row has: the same aggregate over no rows at all (keys in an empty list).
        own.forEach((_, i) => (variables[`${KEYS_VARIABLE(i)}_none`] = []));
        const text = await connection.runQuery(emptyStatement, sessionJson, bindParams(emptyStatement.params, variables, ext.session), run);
        none = parseLossless(text);
      }
      return parentKeys.map((k) => (k === null ? null : byKey.has(k) ? byKey.get(k) : none));
    },
  };
}

const AGGREGATE_ALIAS = '__svc_aggregate';
