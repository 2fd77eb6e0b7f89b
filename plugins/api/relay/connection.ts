/**
 * `<t>_connection` and `<rel>_connection` → ConnectionSelectIR. `where`, `order_by` and
 * `distinct_on` are read as for an ordinary select (over the ordinary view); the primary key is
 * appended to the ordering so it is total and cursors are stable; `first`/`last` stay parameters;
 * a cursor is decoded now (a variable holding one is read, so the plan is keyed on it) into the
 * values the keyset compares with. Errors are the reference engine's.
 */
import { GraphQLBoolean, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, Kind, type GraphQLFieldConfigArgumentMap } from 'graphql';
import {
  argumentsOf,
  boolExpType,
  buildFields,
  buildOrderBy,
  buildWhere,
  collectFields,
  EngineError,
  listItems,
  objectType,
  orderByType,
  present,
  qualifiedTableName,
  selectColumnEnum,
  subSelection,
  toJson,
  validationError,
  type CollectedField,
  type ConnectionFieldIR,
  type ConnectionSelectIR,
  type EdgeFieldIR,
  type Input,
  type OrderByIR,
  type OrderExprIR,
  type PageInfoFieldIR,
  type PlanContext,
  type TableView,
  type TypedValueIR,
  type TypeRegistry,
} from '../../../core/sdk/index.js';
import { decodeBase64Json } from './codec.js';
import type { RelayView } from './views.js';

export const PAGE_INFO = 'PageInfo';

export const connectionTypeName = (view: TableView): string => `${view.names.object}Connection`;
const edgeTypeName = (view: TableView): string => `${view.names.object}Edge`;

function pageInfoType(reg: TypeRegistry): GraphQLObjectType {
  return reg.get(
    PAGE_INFO,
    () =>
      new GraphQLObjectType({
        name: PAGE_INFO,
        fields: {
          endCursor: { type: new GraphQLNonNull(GraphQLString) },
          hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
          hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
          startCursor: { type: new GraphQLNonNull(GraphQLString) },
        },
      }),
  );
}

/** `<t>Connection { edges: [<t>Edge!]!, pageInfo: PageInfo! }`, `<t>Edge { cursor: String!, node: <t>! }`. */
export function connectionType(reg: TypeRegistry, view: RelayView): GraphQLObjectType {
  const name = connectionTypeName(view);
  return reg.get(name, () => {
    const edge = reg.get(
      edgeTypeName(view),
      () =>
        new GraphQLObjectType({
          name: edgeTypeName(view),
          fields: () => ({
            cursor: { type: new GraphQLNonNull(GraphQLString) },
            node: { type: new GraphQLNonNull(objectType(reg, view)) },
          }),
        }),
    );
    return new GraphQLObjectType({
      name,
      description: `A Relay connection object on "${qualifiedTableName(view.table.table)}"`,
      fields: () => ({
        edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))) },
        pageInfo: { type: new GraphQLNonNull(pageInfoType(reg)) },
      }),
    });
  });
}

/** `after, before, distinct_on, first, last, order_by, where`. */
export function connectionArgs(reg: TypeRegistry, view: RelayView): GraphQLFieldConfigArgumentMap {
  const o = view.original;
  const args: GraphQLFieldConfigArgumentMap = {
    after: { type: GraphQLString },
    before: { type: GraphQLString },
  };
  const columns = o.distinctOn === false ? null : selectColumnEnum(reg, o);
  if (columns) args['distinct_on'] = { type: new GraphQLList(new GraphQLNonNull(columns)), description: 'distinct select on columns' };
  args['first'] = { type: GraphQLInt };
  args['last'] = { type: GraphQLInt };
  const orderBy = orderByType(reg, o);
  if (orderBy) args['order_by'] = { type: new GraphQLList(new GraphQLNonNull(orderBy)), description: 'sort the rows by one or more columns' };
  args['where'] = { type: boolExpType(reg, o), description: 'filter the rows returned' };
  return args;
}

export function buildConnection(view: RelayView, field: CollectedField, ctx: PlanContext, path: string): ConnectionSelectIR {
  const o = view.original;
  const args = argumentsOf(field);
  const at = (name: string): string => `${path}.args.${name}`;
  const given = (name: string): Input | null => {
    const input = args.get(name);
    return input ? present(input, ctx) : null;
  };
  const whereIn = given('where');
  const where = whereIn ? buildWhere(o, whereIn, ctx, at('where')) : null;
  const orderIn = args.get('order_by');
  let orderBy = orderIn ? buildOrderBy(o, orderIn, ctx, at('order_by')) : [];
  const distinctIn = given('distinct_on');
  const distinctOn = distinctIn ? listItems(distinctIn, ctx).map((item) => columnOfEnum(o, toJson(item, ctx), at('distinct_on'))) : [];
  if (distinctOn.length > 0) orderBy = distinctFirst(distinctOn, orderBy, o, at('distinct_on'));
  orderBy = withPrimaryKey(orderBy, view);

  const firstIn = args.get('first');
  const lastIn = args.get('last');
  const first = firstIn && !isNullInput(firstIn, ctx) ? firstIn : null;
  const last = lastIn && !isNullInput(lastIn, ctx) ? lastIn : null;
  if (first && last) throw validationError('"first" and "last" are not allowed at once', path);
  const afterIn = given('after');
  const beforeIn = given('before');
  if (afterIn && beforeIn) throw validationError('"after" and "before" are not allowed at once', path);

  const cursorPaths = orderBy.map((item) => cursorPath(o, item.expr));
  const cursorIn = afterIn ?? beforeIn;
  const split = cursorIn
    ? {
        kind: afterIn ? ('after' as const) : ('before' as const),
        // DISTINCT ON keeps one row per distinct value: comparing those leading keys is enough.
        values: cursorValues(toJson(cursorIn, ctx), orderBy.slice(0, distinctOn.length || orderBy.length), cursorPaths, path),
        notNull: orderBy.slice(0, distinctOn.length || orderBy.length).map((item) => notNullKey(o, item.expr)),
      }
    : null;
  const slice = first
    ? { kind: 'first' as const, count: pageSize(first, ctx, at('first')) }
    : last
      ? { kind: 'last' as const, count: pageSize(last, ctx, at('last')) }
      : null;
  return {
    from: view.ref,
    where,
    permissionFilter: view.permissionFilter(),
    orderBy,
    distinctOn,
    limit: null,
    offset: null,
    permissionLimit: view.access.limit,
    cursorPaths,
    split,
    slice,
    fields: connectionFields(view, field, ctx, path),
  };
}

function isNullInput(input: Input, ctx: PlanContext): boolean {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) return ctx.readVariable(input.node.name.value) == null;
  return present(input, ctx) === null;
}

/** A literal is checked now; a variable stays a parameter (checked when bound). */
function pageSize(input: Input, ctx: PlanContext, path: string): TypedValueIR {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    return { value: { kind: 'variable', name: input.node.name.value, path: [] }, dbType: 'int4' };
  }
  const value = Number(toJson(input, ctx));
  if (!Number.isInteger(value)) throw validationError(`expected an integer, but found ${JSON.stringify(toJson(input, ctx))}`, path);
  if (value < 0) throw new EngineError('not-supported', 'unexpected negative value', { path });
  return { value: { kind: 'const', value }, dbType: 'int4' };
}

function columnOfEnum(view: TableView, value: unknown, path: string): string {
  const col = typeof value === 'string' ? view.columnsByField.get(value) : undefined;
  if (!col) throw validationError(`unexpected value ${JSON.stringify(value)} for enum: '${view.names.selectColumn}'`, path);
  return col.column.name;
}

/** DISTINCT ON columns must lead the ordering (the reference's rule); when order_by is absent they do. */
function distinctFirst(distinctOn: string[], orderBy: OrderByIR[], view: TableView, path: string): OrderByIR[] {
  if (orderBy.length > 0) {
    const lead = orderBy.slice(0, distinctOn.length);
    const ok = lead.length === distinctOn.length && lead.every((x, i) => x.expr.kind === 'column' && x.expr.name === distinctOn[i]);
    if (!ok) throw validationError('"distinct_on" columns must match initial "order_by" columns', path);
    return orderBy;
  }
  return distinctOn.map((name) => {
    const c = view.columns.find((x) => x.column.name === name)!;
    return { expr: { kind: 'column', name, type: c.column.type }, direction: 'asc', nulls: 'last' };
  });
}

/** The primary-key columns the ordering does not name yet, ascending: every row then has its own place. */
function withPrimaryKey(orderBy: OrderByIR[], view: RelayView): OrderByIR[] {
  const named = new Set(orderBy.flatMap((x) => (x.expr.kind === 'column' ? [x.expr.name] : [])));
  const extra: OrderByIR[] = (view.nodeKey ?? [])
    .filter((c) => !named.has(c.name))
    .map((c) => ({ expr: { kind: 'column', name: c.name, type: c.type }, direction: 'asc', nulls: 'last' }));
  return [...orderBy, ...extra];
}

/** Where an order-by value sits in the cursor object, as the reference names it. */
function cursorPath(view: TableView, e: OrderExprIR): string[] {
  switch (e.kind) {
    case 'column':
      return [e.name];
    case 'objectRelationship': {
      const rel = view.relationships.find((r) => r.rel.kind === 'object' && sameTarget(r.target, e.target) && sameMapping(r.rel.mapping, e.mapping));
      return rel ? [rel.rel.name, ...cursorPath(rel.target, e.expr)] : ['?'];
    }
    case 'arrayAggregate': {
      const rel = view.relationships.find((r) => r.rel.kind === 'array' && sameTarget(r.target, e.target) && sameMapping(r.rel.mapping, e.mapping));
      const head = `${rel?.rel.name ?? '?'}_aggregate`;
      return e.fn === 'count' ? [head, 'count'] : [head, e.fn, e.column?.name ?? '?'];
    }
    case 'computed':
    case 'computedAggregate': {
      const cf = view.computedFields.find((c) => c.cf.function.schema === e.call.function.schema && c.cf.function.name === e.call.function.name);
      const name = cf?.cf.name ?? e.call.function.name;
      if (e.kind === 'computed') return [name];
      return e.fn === 'count' ? [`${name}_aggregate`, 'count'] : [`${name}_aggregate`, e.fn, e.column?.name ?? '?'];
    }
  }
}

const sameTarget = (view: TableView, t: { schema: string; name: string }): boolean => view.ref.schema === t.schema && view.ref.name === t.name;
const sameMapping = (a: Array<[string, string]>, b: Array<[string, string]>): boolean =>
  a.length === b.length && a.every(([x, y], i) => b[i]![0] === x && b[i]![1] === y);

/** Whether the key is a column the database guarantees is never NULL. */
function notNullKey(view: TableView, e: OrderExprIR): boolean {
  if (e.kind !== 'column' || e.visibleWhen) return false;
  const c = view.columns.find((x) => x.column.name === e.name);
  return c !== undefined && !c.column.nullable && !c.forceNullable;
}

/** The database type a cursor value is compared as. */
function keyType(e: OrderExprIR): string {
  switch (e.kind) {
    case 'column':
    case 'computed':
      return e.type;
    case 'objectRelationship':
      return keyType(e.expr);
    case 'arrayAggregate':
    case 'computedAggregate':
      if (e.fn === 'count') return 'int8';
      return (e.fn === 'max' || e.fn === 'min') && e.column ? e.column.type : 'numeric';
  }
}

/** The cursor's values for the leading order-by items; the reference's error when any is missing. */
function cursorValues(cursor: unknown, items: readonly OrderByIR[], paths: readonly string[][], path: string): TypedValueIR[] {
  const invalid = (): EngineError => validationError('the "after" or "before" cursor is invalid', path);
  if (typeof cursor !== 'string') throw invalid();
  const decoded = decodeBase64Json(cursor);
  if (!decoded) throw invalid();
  return items.map((item, i) => {
    let v: unknown = decoded.value;
    for (const step of paths[i]!) {
      if (typeof v !== 'object' || v === null || Array.isArray(v) || !(step in v)) throw invalid();
      v = (v as Record<string, unknown>)[step];
    }
    // Sent as text and cast to the key's type, as the value was written from it.
    const text = v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
    return { value: { kind: 'const', value: text }, dbType: keyType(item.expr) };
  });
}

function connectionFields(view: RelayView, field: CollectedField, ctx: PlanContext, path: string): ConnectionFieldIR[] {
  const typeName = connectionTypeName(view);
  return collectFields(subSelection(field), ctx).map((f): ConnectionFieldIR => {
    const at = `${path}.selectionSet.${f.key}`;
    if (f.name === '__typename') return { kind: 'typename', alias: f.key, typeName };
    if (f.name === 'pageInfo') {
      return {
        kind: 'pageInfo',
        alias: f.key,
        fields: collectFields(subSelection(f), ctx).map((p): PageInfoFieldIR => {
          if (p.name === '__typename') return { kind: 'typename', alias: p.key, typeName: PAGE_INFO };
          if (p.name === 'hasNextPage' || p.name === 'hasPreviousPage' || p.name === 'startCursor' || p.name === 'endCursor') {
            return { kind: p.name, alias: p.key };
          }
          throw validationError(`field '${p.name}' not found in type: '${PAGE_INFO}'`, `${at}.selectionSet.${p.key}`);
        }),
      };
    }
    if (f.name === 'edges') {
      const edgeType = edgeTypeName(view);
      return {
        kind: 'edges',
        alias: f.key,
        fields: collectFields(subSelection(f), ctx).map((e): EdgeFieldIR => {
          const eAt = `${at}.selectionSet.${e.key}`;
          if (e.name === '__typename') return { kind: 'typename', alias: e.key, typeName: edgeType };
          if (e.name === 'cursor') return { kind: 'cursor', alias: e.key };
          if (e.name === 'node') return { kind: 'node', alias: e.key, fields: buildFields(view, subSelection(e), ctx, eAt) };
          throw validationError(`field '${e.name}' not found in type: '${edgeType}'`, eAt);
        }),
      };
    }
    throw validationError(`field '${f.name}' not found in type: '${typeName}'`, at);
  });
}
