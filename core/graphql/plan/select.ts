/**
 * Selection sets and select arguments → IR, for root fields and nested relationships alike.
 * Every nested select re-applies its table's permission (filter and row cap), as the root does.
 */
import { Kind, type FieldNode, type SelectionSetNode } from 'graphql';
import type {
  AggregateFieldIR,
  BoolExpIR,
  AggregateOpIR,
  AggregateSelectIR,
  FieldIR,
  SelectFromIR,
  SelectIR,
  TypedValueIR,
} from '../ir.js';
import { buildWhere } from './bool-exp.js';
import { AGGREGATE_FNS, buildOrderBy } from './order-by.js';
import { present, listItems, toJson, validationError, type Input } from './input.js';
import { argumentsOf, collectFields, subSelection, type CollectedField } from './selection.js';
import type { ColumnView, TableView } from './view.js';
import { parseJsonPath, PATH_ARG } from './json-path.js';
import type { PlanContext } from '../schema-draft.js';
import { EngineError } from '../../errors.js';
import { computedFieldIR } from './computed-field.js';

export type SelectArgsIR = Pick<SelectFromIR, 'where' | 'orderBy' | 'distinctOn' | 'distinctVisibleWhen' | 'limit' | 'offset'>;

/** `distinct_on, limit, offset, order_by, where` of a list or aggregate select. */
export function buildSelectArgs(view: TableView, args: Map<string, Input>, ctx: PlanContext, path: string): SelectArgsIR {
  const n = view.naming;
  const arg = (name: string): Input | undefined => args.get(n.field(name));
  const at = (name: string): string => `${path}.args.${n.field(name)}`;

  const whereIn = given(arg('where'), ctx);
  const where = whereIn ? buildWhere(view, whereIn, ctx, at('where')) : null;
  const orderIn = arg('order_by');
  const orderBy = orderIn ? buildOrderBy(view, orderIn, ctx, at('order_by')) : [];
  const distinctIn = given(arg('distinct_on'), ctx);
  const distinctOn = distinctIn
    ? listItems(distinctIn, ctx).map((item) => columnOfEnum(view, toJson(item, ctx), at('distinct_on')))
    : [];
  if (distinctOn.length > 0 && orderBy.length > 0) checkDistinctOrder(distinctOn, orderBy, at('distinct_on'));
  const distinctVisibleWhen: Record<string, BoolExpIR> = {};
  for (const c of view.columns) if (c.visibleWhen && distinctOn.includes(c.column.name)) distinctVisibleWhen[c.column.name] = c.visibleWhen();
  const limitIn = arg('limit');
  const offsetIn = arg('offset');
  return {
    where,
    orderBy,
    distinctOn,
    ...(Object.keys(distinctVisibleWhen).length > 0 ? { distinctVisibleWhen } : {}),
    limit: limitIn ? paging(limitIn, ctx, 'int4', at('limit')) : null,
    offset: offsetIn ? paging(offsetIn, ctx, 'int8', at('offset')) : null,
  };
}

const given = (input: Input | undefined, ctx: PlanContext): Input | null => (input ? present(input, ctx) : null);

/** The reference engine requires DISTINCT ON columns to lead the ordering when both are given. */
function checkDistinctOrder(distinctOn: string[], orderBy: SelectArgsIR['orderBy'], path: string): void {
  const lead = orderBy.slice(0, distinctOn.length);
  const ok =
    lead.length === distinctOn.length &&
    lead.every((o) => o.expr.kind === 'column' && distinctOn.includes(o.expr.name));
  if (!ok) throw validationError('"distinct_on" columns must match initial "order_by" columns', path);
}

/** `limit`/`offset`: a literal is checked now; a variable stays a parameter, checked at bind time. */
function paging(input: Input, ctx: PlanContext, dbType: string, path: string): TypedValueIR | null {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    return { value: { kind: 'variable', name: input.node.name.value, path: [] }, dbType };
  }
  const raw = toJson(input, ctx);
  if (raw === null || raw === undefined) return null;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw validationError(`expected an integer, but found ${JSON.stringify(raw)}`, path);
  if (value < 0) throw new EngineError('not-supported', 'unexpected negative value', { path });
  return { value: { kind: 'const', value }, dbType };
}

function columnOfEnum(view: TableView, value: unknown, path: string): string {
  const col = typeof value === 'string' ? view.columnsByField.get(value) : undefined;
  if (!col) throw validationError(`unexpected value ${JSON.stringify(value)} for enum: '${view.names.selectColumn}'`, path);
  return col.column.name;
}

const notFound = (name: string, typeName: string, path: string): EngineError =>
  validationError(`field '${name}' not found in type: '${typeName}'`, path);

/** A column of the row; a json/jsonb one may take `path` (the reference's `#>` selection). */
function columnField(view: TableView, column: ColumnView, f: CollectedField, ctx: PlanContext, at: string): FieldIR {
  const base: Extract<FieldIR, { kind: 'column' }> = { kind: 'column', alias: f.key, name: column.column.name, type: column.column.type };
  // Inherited roles: a cell the role sees only on some rows.
  if (column.visibleWhen) base.visibleWhen = column.visibleWhen();
  if (column.enumValues && view.naming.upperCaseEnumValues) base.upper = true;
  const given = argumentsOf(f).get(PATH_ARG);
  const text = given ? toJson(given, ctx) : null;
  if (typeof text !== 'string') return base;
  const parsed = parseJsonPath(text);
  if ('error' in parsed) throw validationError(`parse json path error: ${parsed.error}`, `${at}.args.${PATH_ARG}`);
  return parsed.length > 0 ? { ...base, jsonPath: parsed } : base;
}

/** The fields selected from one row of a table. */
export function buildFields(view: TableView, set: SelectionSetNode, ctx: PlanContext, path: string): FieldIR[] {
  return collectFields(set, ctx).map((f): FieldIR => {
    const at = `${path}.selectionSet.${f.key}`;
    if (f.name === '__typename') return { kind: 'typename', alias: f.key, typeName: view.names.object };
    const column = view.columnsByField.get(f.name);
    if (column) return columnField(view, column, f, ctx, at);
    const rel = view.relationshipsByField.get(f.name);
    if (rel && rel.rel.kind === 'object') {
      const select: SelectIR = {
        ...emptySelectFrom(rel.target),
        ...(rel.targetFilterImplied ? { permissionFilter: null } : {}),
        // One row at most: the reference engine applies no row cap to object relationships.
        permissionLimit: null,
        fields: buildFields(rel.target, subSelection(f), ctx, at),
      };
      return { kind: 'objectRelationship', alias: f.key, mapping: rel.rel.mapping, select };
    }
    if (rel) {
      const select = buildSelect(rel.target, f, ctx, at);
      return { kind: 'arrayRelationship', alias: f.key, mapping: rel.rel.mapping, select: rel.targetFilterImplied ? { ...select, permissionFilter: null } : select };
    }
    const agg = view.aggregatesByField.get(f.name);
    if (agg) {
      return { kind: 'arrayAggregate', alias: f.key, mapping: agg.rel.mapping, aggregate: buildAggregateSelect(agg.target, f, ctx, at) };
    }
    const computed = view.computedFieldsByField.get(f.name);
    if (computed) return computedFieldIR(computed, f, ctx, at);
    const extra = view.extraFields?.get(f.name);
    if (extra) return extra.plan(f, ctx, at);
    throw notFound(f.name, view.names.object, at);
  });
}

function emptySelectFrom(view: TableView): SelectFromIR {
  return {
    from: view.ref,
    where: null,
    permissionFilter: view.permissionFilter(),
    orderBy: [],
    distinctOn: [],
    limit: null,
    offset: null,
    permissionLimit: view.access.limit,
  };
}

/** A list select (root field or array relationship) with its arguments and fields. */
export function buildSelect(view: TableView, field: CollectedField | FieldNode, ctx: PlanContext, path: string): SelectIR {
  const collected = toCollected(field);
  return {
    ...emptySelectFrom(view),
    ...buildSelectArgs(view, argumentsOf(collected), ctx, path),
    fields: buildFields(view, subSelection(collected), ctx, path),
  };
}

/** An aggregate select (`<t>_aggregate` root field or `<rel>_aggregate`). */
export function buildAggregateSelect(
  view: TableView,
  field: CollectedField | FieldNode,
  ctx: PlanContext,
  path: string,
): AggregateSelectIR {
  const collected = toCollected(field);
  const names = view.names;
  const fields = collectFields(subSelection(collected), ctx).map((f): AggregateFieldIR => {
    const at = `${path}.selectionSet.${f.key}`;
    if (f.name === '__typename') return { kind: 'typename', alias: f.key, typeName: names.aggregate };
    if (f.name === 'nodes') return { kind: 'nodes', alias: f.key, fields: buildFields(view, subSelection(f), ctx, at) };
    if (f.name === 'aggregate') return { kind: 'aggregate', alias: f.key, ops: buildAggregateOps(view, f, ctx, at) };
    throw notFound(f.name, names.aggregate, at);
  });
  return { ...emptySelectFrom(view), ...buildSelectArgs(view, argumentsOf(collected), ctx, path), fields };
}

function buildAggregateOps(view: TableView, field: CollectedField, ctx: PlanContext, path: string): AggregateOpIR[] {
  const n = view.naming;
  return collectFields(subSelection(field), ctx).map((f): AggregateOpIR => {
    const at = `${path}.selectionSet.${f.key}`;
    if (f.name === '__typename') return { kind: 'typename', alias: f.key, typeName: view.names.aggregateFields };
    if (f.name === 'count') {
      const args = argumentsOf(f);
      const cols = given(args.get('columns'), ctx);
      const distinct = args.get('distinct');
      const columns = cols ? listItems(cols, ctx).map((c) => columnOfEnum(view, toJson(c, ctx), `${at}.args.columns`)) : [];
      const hidden: Record<string, BoolExpIR> = {};
      for (const c of view.columns) if (c.visibleWhen && columns.includes(c.column.name)) hidden[c.column.name] = c.visibleWhen();
      return {
        kind: 'count',
        alias: f.key,
        columns,
        distinct: distinct ? toJson(distinct, ctx) === true : false,
        ...(Object.keys(hidden).length > 0 ? { visibleWhen: hidden } : {}),
      };
    }
    const fn = AGGREGATE_FNS.find((a) => n.field(a) === f.name);
    if (!fn) throw notFound(f.name, view.names.aggregateFields, at);
    const opType = view.names.opFields(fn);
    const fields = collectFields(subSelection(f), ctx).map((c) => {
      if (c.name === '__typename') return { kind: 'typename' as const, alias: c.key, typeName: opType };
      const col = view.columnsByField.get(c.name);
      if (!col) throw notFound(c.name, opType, `${at}.selectionSet.${c.key}`);
      const field = { kind: 'column' as const, alias: c.key, name: col.column.name, type: col.column.type };
      return col.visibleWhen ? { ...field, visibleWhen: col.visibleWhen() } : field;
    });
    return { kind: 'fn', alias: f.key, fn, fields };
  });
}

function toCollected(field: CollectedField | FieldNode): CollectedField {
  if ('nodes' in field) return field;
  return { key: field.alias?.value ?? field.name.value, name: field.name.value, nodes: [field] };
}
