/**
 * The streaming subscription field of a table, `<t>_stream(batch_size, cursor, where)`, and its
 * input types, named and described as the reference engine does:
 *
 *   input <t>_stream_cursor_input { initial_value: <t>_stream_cursor_value_input!, ordering: cursor_ordering }
 *   input <t>_stream_cursor_value_input { <column>: <type>, ... }
 *   enum cursor_ordering { ASC DESC }
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { lazyRootEntry, type DbRootFieldPlanner, type RootFieldEntry } from '../schema-draft.js';
import type { TableView } from '../plan/view.js';
import { planStream } from '../plan/stream.js';
import { boolExpType, quoted } from './inputs.js';
import { columnDescription, columnValueType, objectType } from './objects.js';
import { sortedFields, type TypeRegistry } from './registry.js';
import { EngineError } from '../../errors.js';

function cursorOrdering(reg: TypeRegistry, view: TableView): GraphQLEnumType {
  const name = view.naming.sharedType('cursor_ordering');
  return reg.get(
    name,
    () =>
      new GraphQLEnumType({
        name,
        description: 'ordering argument of a cursor',
        values: {
          ASC: { value: 'ASC', description: 'ascending ordering of the cursor' },
          DESC: { value: 'DESC', description: 'descending ordering of the cursor' },
        },
      }),
  );
}

function cursorValueInput(reg: TypeRegistry, view: TableView): GraphQLInputObjectType {
  const name = view.naming.type(`${view.table.identifier}_stream_cursor_value_input`);
  return reg.get(
    name,
    () =>
      new GraphQLInputObjectType({
        name,
        description: 'Initial value of the column from where the streaming should start',
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = {};
          for (const c of view.columns) {
            const description = columnDescription(c);
            fields[c.field] = { type: columnValueType(reg, c), ...(description ? { description } : {}) };
          }
          return sortedFields(fields);
        },
      }),
  );
}

function cursorInput(reg: TypeRegistry, view: TableView): GraphQLInputObjectType {
  const name = view.naming.type(`${view.table.identifier}_stream_cursor_input`);
  return reg.get(
    name,
    () =>
      new GraphQLInputObjectType({
        name,
        description: `Streaming cursor of the table ${quoted(view)}`,
        fields: () => ({
          [view.naming.field('initial_value')]: {
            type: new GraphQLNonNull(cursorValueInput(reg, view)),
            description: 'Stream column input with initial value',
          },
          [view.naming.field('ordering')]: { type: cursorOrdering(reg, view), description: 'cursor ordering' },
        }),
      }),
  );
}

/** `<t>_stream`, or null when the role sees no column to stream on. */
export function streamRootField(reg: TypeRegistry, view: TableView): [string, RootFieldEntry] | null {
  if (view.columns.length === 0) return null;
  const name = view.table.rootFields.select_stream;
  const config = reg.rootConfig(view.source, view.table.key, name, () => {
    const n = view.naming;
    const args: GraphQLFieldConfigArgumentMap = {
      [n.field('batch_size')]: { type: new GraphQLNonNull(GraphQLInt), description: 'maximum number of rows returned in a single batch' },
      [n.field('cursor')]: {
        type: new GraphQLNonNull(new GraphQLList(cursorInput(reg, view))),
        description: 'cursor to stream the results returned by the query',
      },
      [n.field('where')]: { type: boolExpType(reg, view), description: 'filter the rows returned' },
    };
    return {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectType(reg, view)))),
      args,
      description: `fetch data from the table in a streaming manner: ${quoted(view)}`,
    };
  });
  return [name, lazyRootEntry(config, streamPlanner(view))];
}

/** By view: roles sharing their views (SchemaDraft.sharedViews) share the planner too. */
const streamPlanners = new WeakMap<TableView, DbRootFieldPlanner>();

function streamPlanner(view: TableView): DbRootFieldPlanner {
  let planner = streamPlanners.get(view);
  if (!planner) {
    planner = {
      kind: 'db',
      source: view.source,
      buildIR: () => {
        throw new EngineError('unexpected', 'a stream field is planned with buildStreamIR');
      },
      buildStreamIR: (field, _parentType, ctx) => planStream(view, field, ctx),
    };
    streamPlanners.set(view, planner);
  }
  return planner;
}
