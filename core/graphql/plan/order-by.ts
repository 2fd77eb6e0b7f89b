/**
 * `order_by` → IR. The whole argument shapes the statement, so variables in it are read. Keys of
 * one object are kept in the order written; a null direction means "not ordered by this".
 */
import type { AggregateFn, OrderByIR, OrderExprIR } from '../ir.js';
import { present, listItems, objectEntries, toJson, validationError, type Input } from './input.js';
import type { ComputedFieldView, TableView } from './view.js';
import type { PlanContext } from '../schema-draft.js';
import { filterableComputedField } from './bool-exp.js';
import { implicitCall } from './computed-field.js';

type Direction = Pick<OrderByIR, 'direction' | 'nulls'>;

const DIRECTIONS: Readonly<Record<string, Direction>> = {
  asc: { direction: 'asc', nulls: 'last' },
  asc_nulls_first: { direction: 'asc', nulls: 'first' },
  asc_nulls_last: { direction: 'asc', nulls: 'last' },
  desc: { direction: 'desc', nulls: 'first' },
  desc_nulls_first: { direction: 'desc', nulls: 'first' },
  desc_nulls_last: { direction: 'desc', nulls: 'last' },
};

export const AGGREGATE_FNS: readonly AggregateFn[] = [
  'avg', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance',
];

export function buildOrderBy(view: TableView, input: Input, ctx: PlanContext, path: string): OrderByIR[] {
  const given = present(input, ctx);
  if (!given) return [];
  const out: OrderByIR[] = [];
  listItems(given, ctx).forEach((item, i) => {
    for (const o of orderByObject(view, item, ctx, `${path}[${i}]`)) out.push(o);
  });
  return out;
}

type AggregateKey = { fn: 'count' | AggregateFn; column?: { name: string; type: string } };

/** `{count: asc, max: {rating: desc}}` over the rows of `target`; `expr` places each key. */
function aggregateOrderBy(
  view: TableView,
  target: TableView,
  value: Input,
  ctx: PlanContext,
  at: string,
  expr: (key: AggregateKey) => OrderExprIR,
): OrderByIR[] {
  const out: OrderByIR[] = [];
  const given = present(value, ctx);
  if (!given) return out;
  for (const [opKey, opValue] of objectEntries(given, ctx, at, target.names.aggregateOrderBy)) {
    const opAt = `${at}.${opKey}`;
    if (opKey === target.naming.field('count')) {
      const d = direction(view, opValue, ctx, opAt);
      if (d) out.push({ expr: expr({ fn: 'count' }), ...d });
      continue;
    }
    const fn = AGGREGATE_FNS.find((f) => target.naming.field(f) === opKey);
    if (!fn) throw validationError(`field '${opKey}' not found in type: '${target.names.aggregateOrderBy}'`, opAt);
    const opGiven = present(opValue, ctx);
    if (!opGiven) continue;
    for (const [colKey, colValue] of objectEntries(opGiven, ctx, opAt, target.names.opOrderBy(fn))) {
      const col = target.columnsByField.get(colKey);
      if (!col) throw validationError(`field '${colKey}' not found in type: '${target.names.opOrderBy(fn)}'`, `${opAt}.${colKey}`);
      const d = direction(view, colValue, ctx, `${opAt}.${colKey}`);
      if (d) out.push({ expr: expr({ fn, column: { name: col.column.name, type: col.column.type } }), ...d });
    }
  }
  return out;
}

/** `<field>_aggregate` of a computed field returning rows, without client arguments. */
export function computedAggregateField(view: TableView, key: string): ComputedFieldView | undefined {
  return view.computedFields.find((c) => c.target && c.args.length === 0 && view.naming.field(`${c.field}_aggregate`) === key);
}

function direction(view: TableView, value: Input, ctx: PlanContext, path: string): Direction | null {
  const raw = toJson(value, ctx);
  if (raw === null || raw === undefined) return null;
  const key = typeof raw === 'string' ? raw.toLowerCase() : '';
  const d = DIRECTIONS[key];
  if (!d || view.naming.enumValue(key) !== raw) {
    throw validationError(`unexpected value ${JSON.stringify(raw)} for enum: '${view.naming.sharedType('order_by')}'`, path);
  }
  return d;
}

/** One `<t>_order_by` object; several keys give several orderings, in the order written. */
function orderByObject(view: TableView, input: Input, ctx: PlanContext, path: string): OrderByIR[] {
  const out: OrderByIR[] = [];
  for (const [key, value] of objectEntries(input, ctx, path, view.names.orderBy)) {
    const at = `${path}.${key}`;
    const column = view.columnsByField.get(key);
    if (column) {
      const d = direction(view, value, ctx, at);
      if (d) {
        const expr: OrderExprIR = { kind: 'column', name: column.column.name, type: column.column.type };
        out.push({ expr: column.visibleWhen ? { ...expr, visibleWhen: column.visibleWhen() } : expr, ...d });
      }
      continue;
    }
    const rel = view.relationshipsByField.get(key);
    if (rel && rel.rel.kind === 'object') {
      const given = present(value, ctx);
      if (!given) continue;
      const filter = rel.target.permissionFilter();
      for (const inner of orderByObject(rel.target, given, ctx, at)) {
        const expr: OrderExprIR = { kind: 'objectRelationship', target: rel.target.ref, mapping: rel.rel.mapping, filter, expr: inner.expr };
        out.push({ ...inner, expr });
      }
      continue;
    }
    const agg = view.aggregatesByField.get(key);
    if (agg) {
      const base = { kind: 'arrayAggregate' as const, target: agg.target.ref, mapping: agg.rel.mapping, filter: agg.target.permissionFilter() };
      out.push(...aggregateOrderBy(view, agg.target, value, ctx, at, (a) => ({ ...base, ...a })));
      continue;
    }
    const rows = computedAggregateField(view, key);
    if (rows) {
      const target = rows.target!;
      const base = { kind: 'computedAggregate' as const, call: implicitCall(rows, ctx, at), target: target.ref, filter: target.permissionFilter() };
      out.push(...aggregateOrderBy(view, target, value, ctx, at, (a) => ({ ...base, ...a })));
      continue;
    }
    const computed = filterableComputedField(view, key);
    if (computed && computed.cf.returns.kind === 'scalar') {
      const d = direction(view, value, ctx, at);
      if (d) {
        const expr: OrderExprIR = { kind: 'computed', call: implicitCall(computed, ctx, at), type: computed.cf.returns.type };
        out.push({ expr: computed.visibleWhen ? { ...expr, visibleWhen: computed.visibleWhen() } : expr, ...d });
      }
      continue;
    }
    throw validationError(`field '${key}' not found in type: '${view.names.orderBy}'`, at);
  }
  return out;
}
