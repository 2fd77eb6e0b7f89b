/**
 * One role's tables as the Relay schema shows them, derived from the role's ordinary views (so
 * permissions, column names and naming are the same): a table whose primary key the role can
 * select implements `Node` and its `id` field is the row's global id (a column named `id` then
 * gives way to it, as in the reference); array relationships become `<rel>_connection` (to tables
 * with a `Node`); there are no aggregates and no computed fields returning rows. Bool and
 * order-by inputs are the ordinary views' (`original`).
 */
import { GraphQLID, GraphQLNonNull, type GraphQLInterfaceType } from 'graphql';
import type { ExtraTableField, FieldIR, PlanContext, RelationshipView, TableView } from '../../../core/sdk/index.js';
import type { CollectedField } from '../../../core/sdk/index.js';

export interface RelayView extends TableView {
  /** The role's ordinary view of the table: where `where`/`order_by` inputs come from. */
  original: TableView;
  /** Primary-key columns (name and type) when the table implements `Node`; null otherwise. */
  nodeKey: Array<{ name: string; type: string }> | null;
  /** Array relationships exposed as connections, by field name (`<rel>_connection`). */
  connections: ReadonlyMap<string, RelationshipView & { target: RelayView }>;
}

/** What the views need from the schema being built: the `Node` interface and how to plan a connection field. */
export interface RelayViewDeps {
  nodeInterface(): GraphQLInterfaceType;
  connectionField(rel: RelationshipView & { target: RelayView }, name: string): ExtraTableField;
}

export function relayViews(views: ReadonlyMap<string, TableView>, deps: RelayViewDeps): Map<string, RelayView> {
  const made = new Map<TableView, RelayView>();
  const relay = (view: TableView): RelayView => {
    const known = made.get(view);
    if (known) return known;
    const nodeKey = nodeKeyOf(view);
    const columns = nodeKey ? view.columns.filter((c) => c.field !== 'id') : view.columns;
    const computedFields = view.computedFields.filter((c) => c.target === null);
    const out: RelayView = {
      ...view,
      original: view,
      inputs: view,
      nodeKey,
      columns,
      columnsByField: new Map(columns.map((c) => [c.field, c])),
      relationships: [],
      relationshipsByField: new Map(),
      aggregatesByField: new Map(),
      computedFields,
      computedFieldsByField: new Map(computedFields.map((c) => [c.field, c])),
      connections: new Map(),
      ...(nodeKey ? { interfaces: () => [deps.nodeInterface()] } : {}),
    };
    // Registered before the relationships are followed: they may lead back here.
    made.set(view, out);
    const objects: RelationshipView[] = [];
    const connections = new Map<string, RelationshipView & { target: RelayView }>();
    for (const r of view.relationships) {
      const target = relay(r.target);
      if (r.rel.kind === 'object') objects.push({ ...r, aggregateField: null, target });
      else if (target.nodeKey) connections.set(`${r.field}_connection`, { ...r, aggregateField: null, target });
    }
    const extra = new Map<string, ExtraTableField>();
    if (nodeKey) extra.set('id', nodeIdField(out, nodeKey));
    for (const [name, rel] of connections) extra.set(name, deps.connectionField(rel, name));
    Object.assign(out, {
      relationships: objects,
      relationshipsByField: new Map(objects.map((r) => [r.field, r])),
      connections,
      extraFields: extra,
    });
    return out;
  };
  const out = new Map<string, RelayView>();
  for (const [key, view] of views) out.set(key, relay(view));
  return out;
}

/**
 * The primary key, when the role may select every column of it (a global id carries the key's
 * values, so a role that cannot read them gets no id).
 */
function nodeKeyOf(view: TableView): Array<{ name: string; type: string }> | null {
  const pk = view.table.primaryKey ?? [];
  if (pk.length === 0) return null;
  const out: Array<{ name: string; type: string }> = [];
  for (const name of pk) {
    const c = view.columns.find((x) => x.column.name === name);
    if (!c || c.visibleWhen) return null;
    out.push({ name, type: c.column.type });
  }
  return out;
}

function nodeIdField(view: RelayView, key: Array<{ name: string; type: string }>): ExtraTableField {
  return {
    field: 'id',
    config: () => ({ type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier' }),
    plan: (f: CollectedField, _ctx: PlanContext): FieldIR => ({ kind: 'nodeId', alias: f.key, table: view.ref, columns: key }),
  };
}
