/**
 * Boolean expressions → IR: the `where` argument (GraphQL field names, the target table's
 * permission folded into every relationship hop, as the reference engine does) and permission
 * filters (database column names, session variables, `_exists`, `_ceq`, legacy `$`-prefixed
 * operators, relationships without re-applying permissions).
 */
import type { BoolExpIR, ComparisonOp } from '../ir.js';
import { and, andMaybe, not, or } from './bool.js';
import {
  buildComparison,
  graphqlComparisonMode,
  permissionComparisonMode,
  type ComparedColumn,
} from './comparison.js';
import { present, jsonInput, leafValue, listItems, objectEntries, toJson, validationError, type Input, type MaybeCtx } from './input.js';
import { tableRef, type ComputedFieldView, type RelationshipView, type TableView } from './view.js';
import type { PlanContext } from '../schema-draft.js';
import type { ResolvedComputedField, ResolvedTable } from '../../schema-cache/model.js';
import { EngineError } from '../../errors.js';
import { implicitCall, rowCall } from './computed-field.js';
import { aggregatePredicatesOf, PAIR_ARGUMENTS } from '../aggregate-predicates.js';

// ---------------------------------------------------------------------------------------------
// `where` arguments

/** A `<t>_bool_exp` value against a table as the role sees it. */
export function buildWhere(view: TableView, input: Input, ctx: PlanContext, path: string): BoolExpIR {
  const typeName = view.names.boolExp;
  const naming = view.naming;
  const items: BoolExpIR[] = [];
  for (const [key, value] of objectEntries(input, ctx, path, typeName)) {
    const at = `${path}.${key}`;
    if (key === '_and' || key === '_or') {
      const list = present(value, ctx);
      if (!list) throw validationError(`unexpected null value for type '[${typeName}!]'`, at);
      const parts = listItems(list, ctx).map((item, i) => buildWhere(view, item, ctx, `${at}[${i}]`));
      items.push(key === '_and' ? and(parts) : or(parts));
      continue;
    }
    if (key === '_not') {
      items.push(not(buildWhere(view, value, ctx, at)));
      continue;
    }
    const column = view.columnsByField.get(key);
    if (column) {
      const compared: ComparedColumn = {
        expr: {
          kind: 'column',
          name: column.column.name,
          type: column.column.type,
          // A hidden cell compares as the null it reads as.
          ...(column.visibleWhen ? { visibleWhen: column.visibleWhen() } : {}),
        },
        type: column.column.type,
        info: column.info,
        graphqlType: column.graphqlType,
        ...(column.enumValues ? { enumValues: column.enumValues } : {}),
        ...(column.column.operators ? { operators: column.column.operators } : {}),
      };
      items.push(buildComparison(compared, value, ctx, graphqlComparisonMode(naming), at));
      continue;
    }
    const rel = view.relationshipsByField.get(key);
    if (rel) {
      const inner = buildWhere(rel.target, value, ctx, at);
      items.push({
        kind: 'relationship',
        target: rel.target.ref,
        mapping: rel.rel.mapping,
        where: andMaybe(rel.target.permissionFilter(), inner) ?? inner,
      });
      continue;
    }
    const agg = view.aggregatesByField.get(key);
    if (agg) {
      items.push(buildAggregatePredicate(agg, value, ctx, at));
      continue;
    }
    const computed = filterableComputedField(view, key);
    if (computed?.scalar && computed.cf.returns.kind === 'scalar') {
      const compared: ComparedColumn = {
        expr: {
          kind: 'computed',
          call: implicitCall(computed, ctx, at),
          type: computed.cf.returns.type,
          ...(computed.visibleWhen ? { visibleWhen: computed.visibleWhen() } : {}),
        },
        type: computed.cf.returns.type,
        info: computed.scalar.info,
        graphqlType: computed.scalar.graphqlType,
      };
      items.push(buildComparison(compared, value, ctx, graphqlComparisonMode(naming), at));
      continue;
    }
    const rows = rowsComputedField(view, key);
    if (rows) {
      // The target's permission is applied as it is through a relationship.
      const inner = buildWhere(rows.target!, value, ctx, at);
      items.push({
        kind: 'computedTable',
        call: implicitCall(rows, ctx, at),
        target: rows.target!.ref,
        where: andMaybe(rows.target!.permissionFilter(), inner) ?? inner,
      });
      continue;
    }
    throw validationError(`field '${key}' not found in type: '${typeName}'`, at);
  }
  return and(items);
}

/** A scalar computed field usable in `where`/`order_by`: one taking no client arguments. */
export function filterableComputedField(view: TableView, field: string): ComputedFieldView | undefined {
  const c = view.computedFieldsByField.get(field);
  return c && c.scalar && c.args.length === 0 ? c : undefined;
}

/** A computed field returning rows usable in `where` (and, aggregated, in `order_by`): no client arguments. */
export function rowsComputedField(view: TableView, field: string): ComputedFieldView | undefined {
  const c = view.computedFieldsByField.get(field);
  return c && c.target && c.args.length === 0 ? c : undefined;
}

/** `articles_aggregate: {count: {predicate: {_gt: 1}, filter: {...}, arguments: [...], distinct}}`. */
function buildAggregatePredicate(agg: RelationshipView, input: Input, ctx: PlanContext, path: string): BoolExpIR {
  const target = agg.target;
  const naming = target.naming;
  const entries = objectEntries(input, ctx, path, target.names.aggregateBoolExp);
  if (entries.length !== 1) throw validationError('exactly one predicate should be specified', path);
  const [key, body] = entries[0]!;
  const sig = aggregatePredicatesOf(target.table.scalars).find((s) => naming.field(s.fn) === key);
  const at = `${path}.${key}`;
  if (!sig) throw validationError(`field '${key}' not found in type: '${target.names.aggregateBoolExp}'`, at);
  const fn = sig.fn;

  let args: string[] = [];
  let distinct = false;
  let filter: BoolExpIR | null = null;
  let predicate: Input | null = null;
  for (const [k, v] of objectEntries(body, ctx, at, target.names.aggregateBoolExpFn(fn))) {
    const vAt = `${at}.${k}`;
    if (k === naming.field('arguments')) {
      const given = present(v, ctx);
      if (!given) args = [];
      else if (sig.args === 'pair') {
        const pair = toJson(given, ctx) as Record<string, unknown>;
        args = PAIR_ARGUMENTS.map((a) => columnNameOf(target, pair?.[a], `${vAt}.${a}`));
      } else args = listItems(given, ctx).map((item) => columnNameOf(target, toJson(item, ctx), vAt));
    } else if (k === naming.field('distinct')) {
      distinct = toJson(v, ctx) === true;
    } else if (k === naming.field('filter')) {
      const given = present(v, ctx);
      filter = given ? buildWhere(target, given, ctx, vAt) : null;
    } else if (k === naming.field('predicate')) {
      predicate = v;
    } else {
      throw validationError(`field '${k}' not found in type: '${target.names.aggregateBoolExpFn(fn)}'`, vAt);
    }
  }
  if (!predicate) throw validationError(`missing required field 'predicate'`, at);
  const type = sig.returns;
  const compared: ComparedColumn = {
    expr: { kind: 'column', name: fn, type: type.dbType },
    type: type.dbType,
    info: target.table.scalars.info(type.dbType),
    graphqlType: type.graphqlType,
  };
  // One IR predicate per operator: `{_gt: 1, _lt: 5}` is two predicates over the same aggregate.
  const ops = buildComparison(compared, predicate, ctx, graphqlComparisonMode(naming), `${at}.predicate`);
  const perm = target.permissionFilter();
  const fullFilter = andMaybe(perm, filter);
  return mapCompares(ops, (op, rhs) => ({
    kind: 'aggregatePredicate',
    target: target.ref,
    mapping: agg.rel.mapping,
    fn,
    args,
    distinct,
    filter: fullFilter,
    predicate: { op, rhs },
  }));
}

function mapCompares(
  exp: BoolExpIR,
  f: (op: ComparisonOp, rhs: Extract<BoolExpIR, { kind: 'compare' }>['rhs']) => BoolExpIR,
): BoolExpIR {
  switch (exp.kind) {
    case 'compare':
      return f(exp.op, exp.rhs);
    case 'and':
      return and(exp.items.map((i) => mapCompares(i, f)));
    default:
      return exp;
  }
}

function columnNameOf(view: TableView, field: unknown, path: string): string {
  const col = typeof field === 'string' ? view.columnsByField.get(field) : undefined;
  if (!col) throw validationError(`unexpected value ${JSON.stringify(field)} for enum: '${view.names.selectColumn}'`, path);
  return col.column.name;
}

// ---------------------------------------------------------------------------------------------
// Permission filters

/**
 * A select/update/delete permission filter (metadata JSON) → IR. Names are database names;
 * string values naming a session variable (`X-Svc-User-Id`, any case) become session values.
 */
export function buildPermissionFilter(
  table: ResolvedTable,
  filter: unknown,
  tables: ReadonlyMap<string, ResolvedTable>,
  path = '$.permission.filter',
): BoolExpIR {
  return permissionExp(table, jsonInput(filter), tables, path);
}

function permissionExp(table: ResolvedTable, input: Input, tables: ReadonlyMap<string, ResolvedTable>, path: string): BoolExpIR {
  const ctx: MaybeCtx = null;
  const items: BoolExpIR[] = [];
  for (const [rawKey, value] of objectEntries(input, ctx, path, 'bool_exp')) {
    const key = rawKey.startsWith('$') ? `_${rawKey.slice(1)}` : rawKey;
    const at = `${path}.${rawKey}`;
    if (key === '_and' || key === '_or') {
      const parts = listItems(value, ctx).map((item, i) => permissionExp(table, item, tables, `${at}[${i}]`));
      items.push(key === '_and' ? and(parts) : or(parts));
    } else if (key === '_not') {
      items.push(not(permissionExp(table, value, tables, at)));
    } else if (key === '_exists') {
      items.push(permissionExists(value, tables, at));
    } else if (table.columnsByName.has(rawKey)) {
      items.push(permissionColumn(table, rawKey, value, at));
    } else if (table.relationships.has(rawKey)) {
      const rel = table.relationships.get(rawKey)!;
      const target = lookupTable(tables, rel.target, at);
      items.push({
        kind: 'relationship',
        target: tableRef(target),
        mapping: rel.mapping,
        where: permissionExp(target, value, tables, at),
      });
    } else if (table.computedFields?.has(rawKey)) {
      items.push(permissionComputed(table, table.computedFields.get(rawKey)!, value, tables, at));
    } else {
      throw new EngineError('unexpected', `no column or relationship "${rawKey}" in table "${table.table.schema}.${table.table.name}"`, { path: at });
    }
  }
  return and(items);
}

/** A computed field of the row (validated to take no client arguments): compared, or filtered through. */
function permissionComputed(table: ResolvedTable, cf: ResolvedComputedField, value: Input, tables: ReadonlyMap<string, ResolvedTable>, path: string): BoolExpIR {
  const call = rowCall(cf);
  const returns = cf.returns;
  if (returns.kind === 'table') {
    const target = lookupTable(tables, returns.table, path);
    return { kind: 'computedTable', call, target: tableRef(target), where: permissionExp(target, value, tables, path) };
  }
  return permissionComparison(
    {
      expr: { kind: 'computed', call, type: returns.type },
      type: returns.type,
      info: table.scalars.info(returns.type, returns.typeKind ? { typeKind: returns.typeKind } : {}),
      graphqlType: returns.type,
    },
    value,
    path,
  );
}

function permissionColumn(table: ResolvedTable, name: string, value: Input, path: string): BoolExpIR {
  const column = table.columnsByName.get(name)!;
  const compared: ComparedColumn = {
    expr: { kind: 'column', name: column.name, type: column.type },
    type: column.type,
    info: table.scalars.info(column.type, {
      ...(column.catalog.elementType ? { elementType: column.catalog.elementType } : {}),
      typeKind: column.catalog.typeKind,
    }),
    graphqlType: column.type,
    ...(column.operators ? { operators: column.operators } : {}),
  };
  return permissionComparison(compared, value, path);
}

function permissionComparison(compared: ComparedColumn, value: Input, path: string): BoolExpIR {
  const raw = toJson(value, null);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    // `{"author_id": "X-Svc-User-Id"}` is shorthand for `_eq`.
    return {
      kind: 'compare',
      lhs: compared.expr,
      op: '_eq',
      rhs: leafValue(value, null, { dbType: compared.type, graphqlType: compared.graphqlType, sessionVariables: true, nullable: true }, path),
    };
  }
  return buildComparison(compared, value, null, permissionComparisonMode, path);
}

function permissionExists(value: Input, tables: ReadonlyMap<string, ResolvedTable>, path: string): BoolExpIR {
  let tableSpec: unknown;
  let where: Input = jsonInput({});
  for (const [k, v] of objectEntries(value, null, path, '_exists')) {
    if (k === '_table') tableSpec = toJson(v, null);
    else if (k === '_where') where = v;
  }
  const key =
    typeof tableSpec === 'string'
      ? `public.${tableSpec}`
      : tableSpec && typeof tableSpec === 'object'
        ? `${(tableSpec as { schema?: string }).schema ?? 'public'}.${(tableSpec as { name?: string }).name ?? ''}`
        : '';
  const target = lookupTable(tables, key, `${path}._table`);
  return { kind: 'exists', target: tableRef(target), where: permissionExp(target, where, tables, `${path}._where`) };
}

function lookupTable(tables: ReadonlyMap<string, ResolvedTable>, key: string, path: string): ResolvedTable {
  const t = tables.get(key);
  if (!t) throw new EngineError('unexpected', `table "${key}" is not tracked`, { path });
  return t;
}
