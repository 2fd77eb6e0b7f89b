/**
 * Remote joins in database answers. A statement whose IR has `remoteJoin` fields returns, at
 * each such field, the row's join columns; here the answer is parsed, the keys of every row are
 * gathered per field (across all parents, at any depth), each field's join resolves its whole
 * batch in ONE call, and the values are put in place before the answer is serialised again.
 * Answers without remote joins never come here: their JSON text is spliced unparsed. Those that
 * do are parsed losslessly (core/lossless-json.ts): a `bigint` join key or a `numeric` column
 * keeps every digit, in the parent rows, in the keys handed to joins and in what comes back.
 */
import { parseLossless, stringifyLossless } from '../../lossless-json.js';
import type { AggregateFieldIR, ConnectionSelectIR, ExternalContext, FieldIR, RemoteJoin, RootFieldIR, SelectIR } from '../ir.js';
import type { MutationIR } from '../ir-mutation.js';

/** Where remote joins sit in one row (or object) of an answer. */
export interface JoinShape {
  joins: Array<{ alias: string; join: RemoteJoin }>;
  nested: Array<{ alias: string; shape: JoinShape }>;
}

const isEmpty = (s: JoinShape): boolean => s.joins.length === 0 && s.nested.length === 0;

function fieldsShape(fields: readonly FieldIR[]): JoinShape {
  const shape: JoinShape = { joins: [], nested: [] };
  for (const f of fields) {
    let inner: JoinShape | null = null;
    switch (f.kind) {
      case 'remoteJoin':
        shape.joins.push({ alias: f.alias, join: f.join });
        continue;
      case 'objectRelationship':
      case 'arrayRelationship':
      case 'computedTable':
        inner = fieldsShape(f.select.fields);
        break;
      case 'arrayAggregate':
        inner = aggregateShape(f.aggregate.fields);
        break;
      case 'arrayConnection':
        inner = connectionShape(f.connection);
        break;
      default:
        continue;
    }
    if (!isEmpty(inner)) shape.nested.push({ alias: f.alias, shape: inner });
  }
  return shape;
}

function aggregateShape(fields: readonly AggregateFieldIR[]): JoinShape {
  const shape: JoinShape = { joins: [], nested: [] };
  for (const f of fields) {
    if (f.kind !== 'nodes') continue;
    const inner = fieldsShape(f.fields);
    if (!isEmpty(inner)) shape.nested.push({ alias: f.alias, shape: inner });
  }
  return shape;
}

/** A connection's rows sit at `edges[].node`. */
function connectionShape(connection: ConnectionSelectIR): JoinShape {
  const shape: JoinShape = { joins: [], nested: [] };
  for (const f of connection.fields) {
    if (f.kind !== 'edges') continue;
    const edge: JoinShape = { joins: [], nested: [] };
    for (const e of f.fields) {
      if (e.kind !== 'node') continue;
      const inner = fieldsShape(e.fields);
      if (!isEmpty(inner)) edge.nested.push({ alias: e.alias, shape: inner });
    }
    if (!isEmpty(edge)) shape.nested.push({ alias: f.alias, shape: edge });
  }
  return shape;
}

/** The joins of a root field's answer; null (the usual case) when it has none. */
export function joinShapeOfQuery(ir: RootFieldIR): JoinShape | null {
  if (ir.kind === 'select') return joinShapeOfSelect(ir.select);
  const shape = ir.kind === 'connection' ? connectionShape(ir.connection) : aggregateShape(ir.aggregate.fields);
  return isEmpty(shape) ? null : shape;
}

export function joinShapeOfSelect(select: SelectIR): JoinShape | null {
  const shape = fieldsShape(select.fields);
  return isEmpty(shape) ? null : shape;
}

export function joinShapeOfMutation(ir: MutationIR): JoinShape | null {
  let shape: JoinShape;
  if (ir.kind === 'function') shape = fieldsShape(ir.select.fields);
  else if (ir.returning.output.kind === 'single') shape = fieldsShape(ir.returning.output.fields);
  else {
    shape = { joins: [], nested: [] };
    for (const f of ir.returning.output.fields) {
      if (f.kind !== 'returning') continue;
      const inner = fieldsShape(f.fields);
      if (!isEmpty(inner)) shape.nested.push({ alias: f.alias, shape: inner });
    }
  }
  return isEmpty(shape) ? null : shape;
}

type Row = Record<string, unknown>;

/** Fills in the remote joins of one answer (JSON text) and returns it as JSON text. */
export async function applyRemoteJoins(json: string, shape: JoinShape, ctx: ExternalContext): Promise<string> {
  const value = parseLossless(json);
  await fillJoins(value, shape, ctx);
  return stringifyLossless(value);
}

/**
 * Fills the joins of an already parsed value in place: every row reached by `shape` below
 * `value` (a row, a list of rows, or null). Exported for remote answers, which join the same way.
 */
export async function fillJoins(value: unknown, shape: JoinShape, ctx: ExternalContext): Promise<void> {
  const batches = new Map<RemoteJoin, { rows: Row[]; aliases: string[] }>();
  gather(value, shape, batches);
  await Promise.all(
    [...batches].map(async ([join, batch]) => {
      const keys = batch.rows.map((r, i) => (r[batch.aliases[i]!] ?? null) as Row);
      const values = await join.resolve(keys, ctx);
      batch.rows.forEach((r, i) => (r[batch.aliases[i]!] = values[i] ?? null));
    }),
  );
}

function gather(value: unknown, shape: JoinShape, batches: Map<RemoteJoin, { rows: Row[]; aliases: string[] }>): void {
  if (Array.isArray(value)) {
    for (const v of value) gather(v, shape, batches);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const row = value as Row;
  for (const { alias, join } of shape.joins) {
    let batch = batches.get(join);
    if (!batch) batches.set(join, (batch = { rows: [], aliases: [] }));
    batch.rows.push(row);
    batch.aliases.push(alias);
  }
  for (const { alias, shape: inner } of shape.nested) gather(row[alias], inner, batches);
}
