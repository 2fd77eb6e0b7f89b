/**
 * `<t>_stream(batch_size, cursor, where)` → StreamIR. The cursor names exactly one column, with
 * its initial value and ordering; the reference engine's messages for none or several.
 */
import type { FieldNode } from 'graphql';
import { EngineError } from '../../errors.js';
import type { StreamIR, TypedValueIR } from '../ir.js';
import type { PlanContext } from '../schema-draft.js';
import { leafValue, listItems, objectEntries, present, toJson, validationError, type Input } from './input.js';
import { argumentsOf } from './selection.js';
import { buildSelect } from './select.js';
import type { TableView } from './view.js';

export function planStream(view: TableView, field: FieldNode, ctx: PlanContext): StreamIR {
  const path = `$.selectionSet.${field.alias?.value ?? field.name.value}`;
  const n = view.naming;
  const args = argumentsOf(field);
  const batchIn = args.get(n.field('batch_size'));
  if (!batchIn) throw validationError(`missing required field '${n.field('batch_size')}'`, `${path}.args`);
  const batchSize = batchSizeValue(batchIn, ctx, `${path}.args.${n.field('batch_size')}`);
  const cursorIn = args.get(n.field('cursor'));
  const cursorPath = `${path}.args.${n.field('cursor')}`;
  const cursorList = cursorIn ? present(cursorIn, ctx) : null;
  if (!cursorList) throw validationError(`missing required field '${n.field('cursor')}'`, `${path}.args`);

  const columns: Array<{ field: string; value: Input; ordering: 'asc' | 'desc'; at: string }> = [];
  listItems(cursorList, ctx).forEach((item, i) => {
    const at = `${cursorPath}[${i}]`;
    const entries = new Map(objectEntries(item, ctx, at, view.naming.type(`${view.table.identifier}_stream_cursor_input`)));
    const orderingIn = entries.get(n.field('ordering'));
    const orderingValue = orderingIn ? toJson(orderingIn, ctx) : null;
    const ordering = orderingValue === 'DESC' ? 'desc' : 'asc';
    const initial = entries.get(n.field('initial_value'));
    if (!initial) throw validationError(`missing required field '${n.field('initial_value')}'`, at);
    const typeName = view.naming.type(`${view.table.identifier}_stream_cursor_value_input`);
    for (const [name, value] of objectEntries(initial, ctx, `${at}.initial_value`, typeName)) {
      columns.push({ field: name, value, ordering, at: `${at}.initial_value.${name}` });
    }
  });
  if (columns.length === 0) throw validationError('one streaming column field is expected', cursorPath);
  if (columns.length > 1) throw new EngineError('not-supported', 'multiple column cursors are not supported yet', { path: cursorPath });
  const c = columns[0]!;
  const col = view.columnsByField.get(c.field);
  if (!col) throw validationError(`field '${c.field}' not found in type: '${view.naming.type(`${view.table.identifier}_stream_cursor_value_input`)}'`, c.at);
  const initial = leafValue(c.value, ctx, {
    dbType: col.column.type,
    graphqlType: col.graphqlType,
    keepsNumericText: col.info.keepsNumericText,
    ...(col.enumValues ? { enumValues: col.enumValues } : {}),
    ...(col.info.isArray ? { array: true } : {}),
  }, c.at);
  return {
    kind: 'stream',
    source: view.source,
    select: buildSelect(view, field, ctx, path),
    cursor: { column: col.column.name, type: col.column.type, direction: c.ordering, initial },
    batchSize,
  };
}

/** `batch_size`: a literal is checked now; a variable stays a value, checked when bound. */
function batchSizeValue(input: Input, ctx: PlanContext, path: string): TypedValueIR {
  const value = leafValue(input, ctx, { dbType: 'int4', graphqlType: 'Int' }, path);
  if (value.value.kind === 'const') {
    const v = value.value.value;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw validationError(`expected an integer, but found ${JSON.stringify(v)}`, path);
    if (v < 0) throw new EngineError('not-supported', 'unexpected negative value', { path });
  }
  return value;
}
