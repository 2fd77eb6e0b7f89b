/**
 * Root fields → `RootFieldIR`: `<t>` (list select), `<t>_by_pk` (single-row select whose `where`
 * is the primary key) and `<t>_aggregate`. The planners returned here are what the schema puts
 * beside each root field's GraphQL definition.
 */
import { Kind, type FieldNode } from 'graphql';
import type { BoolExpIR, RootFieldIR } from '../ir.js';
import type { DbRootFieldPlanner, PlanContext } from '../schema-draft.js';
import { and } from './bool.js';
import { leafValue, validationError } from './input.js';
import { argumentsOf } from './selection.js';
import { buildAggregateSelect, buildFields, buildSelect } from './select.js';
import type { TableView } from './view.js';

export type RootFieldKind = 'select' | 'select_by_pk' | 'select_aggregate';

const rootPath = (field: FieldNode): string => `$.selectionSet.${field.alias?.value ?? field.name.value}`;

export function planSelect(view: TableView, field: FieldNode, ctx: PlanContext): RootFieldIR {
  return { kind: 'select', source: view.source, select: buildSelect(view, field, ctx, rootPath(field)), single: false };
}

export function planSelectByPk(view: TableView, field: FieldNode, ctx: PlanContext): RootFieldIR {
  const path = rootPath(field);
  const args = argumentsOf(field);
  const items: BoolExpIR[] = (view.table.primaryKey ?? []).map((name) => {
    const col = view.columns.find((c) => c.column.name === name);
    if (!col) throw validationError(`primary key column '${name}' is not selectable`, path);
    const input = args.get(col.field);
    const at = `${path}.args.${col.field}`;
    if (!input) throw validationError(`missing required field '${col.field}'`, at);
    const spec = {
      dbType: col.column.type,
      graphqlType: col.graphqlType,
      keepsNumericText: col.info.keepsNumericText,
      ...(col.enumValues ? { enumValues: col.enumValues } : {}),
    };
    return {
      kind: 'compare',
      lhs: {
        kind: 'column',
        name: col.column.name,
        type: col.column.type,
        ...(col.visibleWhen ? { visibleWhen: col.visibleWhen() } : {}),
      },
      op: '_eq',
      rhs: leafValue(input, ctx, spec, at),
    };
  });
  return {
    kind: 'select',
    source: view.source,
    single: true,
    select: {
      from: view.ref,
      where: and(items),
      permissionFilter: view.permissionFilter(),
      orderBy: [],
      distinctOn: [],
      limit: null,
      offset: null,
      // The result is one nullable object: the reference engine drops the row cap here.
      permissionLimit: null,
      fields: buildFields(view, field.selectionSet ?? { kind: Kind.SELECTION_SET, selections: [] }, ctx, path),
    },
  };
}

export function planAggregate(view: TableView, field: FieldNode, ctx: PlanContext): RootFieldIR {
  return { kind: 'aggregate', source: view.source, aggregate: buildAggregateSelect(view, field, ctx, rootPath(field)) };
}

const PLANNERS: Readonly<Record<RootFieldKind, (view: TableView, field: FieldNode, ctx: PlanContext) => RootFieldIR>> = {
  select: planSelect,
  select_by_pk: planSelectByPk,
  select_aggregate: planAggregate,
};

/** Planners by view: roles sharing their views (SchemaDraft.sharedViews) share these too. */
const planners = new WeakMap<TableView, Partial<Record<RootFieldKind, DbRootFieldPlanner>>>();

/** The planner of one root field of a table. */
export function rootFieldPlanner(view: TableView, kind: RootFieldKind): DbRootFieldPlanner {
  let byKind = planners.get(view);
  if (!byKind) planners.set(view, (byKind = {}));
  const known = byKind[kind];
  if (known) return known;
  const plan = PLANNERS[kind];
  return (byKind[kind] = { kind: 'db', source: view.source, buildIR: (field, _parentType, ctx) => plan(view, field, ctx) });
}
