/**
 * `node(id: ID!): Node`: the id names the table and the primary-key values; the answer is that
 * row through the role's view (permission filter included: a row the role cannot see is null),
 * with the fields the selection asks for on `Node` and on that table's type. Ids are decoded at
 * plan time (a variable holding one is read, so the plan is keyed on it), with the reference's
 * `invalid node id: ...` errors at `$.selectionSet.node.args.id`.
 */
import type { FieldNode } from 'graphql';
import {
  selectionForType,
  and,
  argumentsOf,
  buildFields,
  toJson,
  validationError,
  type BoolExpIR,
  type DbRootFieldPlanner,
  type PlanContext,
  type RootFieldIR,
} from '../../../core/sdk/index.js';
import { decodeNodeId } from './codec.js';
import type { RelayView } from './views.js';

export const NODE_INTERFACE = 'Node';

/** The role's tables that have a `Node`, across the relay sources. */
export type NodeTables = ReadonlyArray<RelayView>;

export function nodePlanner(tables: NodeTables): DbRootFieldPlanner {
  return {
    kind: 'db',
    source: tables[0]!.source,
    buildIR: (field, _parent, ctx) => planNode(tables, field, ctx),
  };
}

function planNode(tables: NodeTables, field: FieldNode, ctx: PlanContext): RootFieldIR {
  const key = field.alias?.value ?? field.name.value;
  const argPath = `$.selectionSet.${key}.args.id`;
  const invalid = (why: string): never => {
    throw validationError(`invalid node id: ${why}`, argPath);
  };
  const input = argumentsOf(field).get('id');
  const text = input ? toJson(input, ctx) : null;
  if (typeof text !== 'string') return invalid('expected a string');
  const id = decodeNodeId(text);
  if ('error' in id) return invalid(id.error);
  const matching = tables.filter((t) => t.ref.schema === id.schema && t.ref.name === id.name);
  const qualified = JSON.stringify(`${id.schema}.${id.name}`);
  if (matching.length === 0) return invalid(`no such table found: ${qualified}`);
  if (matching.length > 1) {
    return invalid(`this V1 node id matches more than one table across different sources: ${qualified} exists in sources ${JSON.stringify(matching.map((t) => t.source))}`);
  }
  const view = matching[0]!;
  const pk = view.nodeKey!;
  if (id.values.length < pk.length) return invalid(`primary key columns ${JSON.stringify(pk.slice(id.values.length).map((c) => c.name))} are missing`);
  if (id.values.length > pk.length) return invalid(`unexpected column values ${JSON.stringify(id.values.slice(pk.length))}`);
  const items: BoolExpIR[] = pk.map((c, i) => {
    const v = id.values[i];
    if (v === null || typeof v === 'object') return invalid(`value of column ${JSON.stringify(c.name)} in node id: expected a scalar`);
    return {
      kind: 'compare',
      lhs: { kind: 'column', name: c.name, type: c.type },
      op: '_eq',
      // Text cast to the column's type, as the value was written from it.
      rhs: { value: { kind: 'const', value: typeof v === 'string' ? v : JSON.stringify(v) }, dbType: c.type },
    };
  });
  const selection = selectionForType(field.selectionSet, NODE_INTERFACE, view.names.object, ctx.fragments);
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
      permissionLimit: null,
      fields: buildFields(view, selection, ctx, `$.selectionSet.${key}`),
    },
  };
}

