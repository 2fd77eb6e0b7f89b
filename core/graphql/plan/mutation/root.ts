/**
 * Mutation root fields → `MutationIR`. Each planner is a `DbRootFieldPlanner` whose
 * `buildMutationIR` the executor calls (its `buildIR` is for queries and is never reached).
 * Database errors of inserts are reported at `$.selectionSet.<field>.args.objects` (or
 * `.object`), of updates and deletes at `$`, as in the reference engine.
 */
import type { FieldNode } from 'graphql';
import type { MutationIR } from '../../ir-mutation.js';
import type { DbRootFieldPlanner, PlanContext } from '../../schema-draft.js';
import { EngineError } from '../../../errors.js';
import { listItems, present, validationError } from '../input.js';
import { argumentsOf } from '../selection.js';
import { buildInsert } from './insert.js';
import { buildResponseReturn, buildSingleReturn } from './output.js';
import { buildDelete, buildUpdate, inputFields, primaryKeyWhere, requiredWhere } from './update.js';
import type { MutationView } from './view.js';

export type MutationFieldKind = 'insert' | 'insert_one' | 'update' | 'update_by_pk' | 'update_many' | 'delete' | 'delete_by_pk';

const rootPath = (field: FieldNode): string => `$.selectionSet.${field.alias?.value ?? field.name.value}`;

function planInsert(v: MutationView, field: FieldNode, ctx: PlanContext, single: boolean): MutationIR {
  const path = rootPath(field);
  const args = argumentsOf(field);
  const argName = single ? 'object' : 'objects';
  const arg = args.get(argName);
  const given = arg ? present(arg, ctx) : null;
  if (!given) throw validationError(`missing required field '${argName}'`, `${path}.args`);
  const objects = single ? [given] : listItems(given, ctx);
  const conflictName = v.naming.field('on_conflict');
  const insert = buildInsert(v, objects, args.get(conflictName), ctx, {
    rows: `${path}.args.${argName}`,
    onConflict: `${path}.args.${conflictName}`,
  });
  return {
    kind: 'insert',
    source: v.source,
    insert,
    returning: single ? buildSingleReturn(v, field, ctx, path) : buildResponseReturn(v, field.selectionSet, ctx, path),
    errorPath: `$.selectionSet.${field.name.value}.args.${argName}`,
  };
}

function planUpdate(v: MutationView, field: FieldNode, ctx: PlanContext, byPk: boolean): MutationIR {
  const path = rootPath(field);
  const args = argumentsOf(field);
  let where;
  if (byPk) {
    const name = 'pk_columns';
    const pk = args.get(name);
    const given = pk ? present(pk, ctx) : null;
    if (!given) throw validationError(`missing required field '${name}'`, `${path}.args`);
    where = primaryKeyWhere(v, inputFields(given, ctx, `${path}.args.${name}`, v.names.pkColumnsInput), ctx, `${path}.args.${name}`);
  } else {
    where = requiredWhere(v, args, ctx, `${path}.args`);
  }
  return {
    kind: 'update',
    source: v.source,
    update: buildUpdate(v, args, where, ctx, `${path}.args`),
    returning: byPk ? buildSingleReturn(v, field, ctx, path) : buildResponseReturn(v, field.selectionSet, ctx, path),
    errorPath: '$',
  };
}

function planUpdateMany(v: MutationView, field: FieldNode, ctx: PlanContext): MutationIR {
  const path = rootPath(field);
  const arg = argumentsOf(field).get('updates');
  const given = arg ? present(arg, ctx) : null;
  if (!given) throw validationError(`missing required field 'updates'`, `${path}.args`);
  const updates = listItems(given, ctx).map((item, i) => {
    const at = `${path}.args.updates[${i}]`;
    const fields = inputFields(item, ctx, at, v.names.updates);
    return buildUpdate(v, fields, requiredWhere(v, fields, ctx, at), ctx, at);
  });
  return { kind: 'updateMany', source: v.source, updates, returning: buildResponseReturn(v, field.selectionSet, ctx, path), errorPath: '$' };
}

function planDelete(v: MutationView, field: FieldNode, ctx: PlanContext, byPk: boolean): MutationIR {
  const path = rootPath(field);
  const args = argumentsOf(field);
  const where = byPk ? primaryKeyWhere(v, args, ctx, `${path}.args`) : requiredWhere(v, args, ctx, `${path}.args`);
  return {
    kind: 'delete',
    source: v.source,
    delete: buildDelete(v, where),
    returning: byPk ? buildSingleReturn(v, field, ctx, path) : buildResponseReturn(v, field.selectionSet, ctx, path),
    errorPath: '$',
  };
}

const PLANNERS: Readonly<Record<MutationFieldKind, (v: MutationView, field: FieldNode, ctx: PlanContext) => MutationIR>> = {
  insert: (v, f, c) => planInsert(v, f, c, false),
  insert_one: (v, f, c) => planInsert(v, f, c, true),
  update: (v, f, c) => planUpdate(v, f, c, false),
  update_by_pk: (v, f, c) => planUpdate(v, f, c, true),
  update_many: planUpdateMany,
  delete: (v, f, c) => planDelete(v, f, c, false),
  delete_by_pk: (v, f, c) => planDelete(v, f, c, true),
};

export function mutationFieldPlanner(v: MutationView, kind: MutationFieldKind): DbRootFieldPlanner {
  const plan = PLANNERS[kind];
  return {
    kind: 'db',
    source: v.source,
    buildIR: () => {
      throw new EngineError('unexpected', 'a mutation root field was planned as a query');
    },
    buildMutationIR: (field, _parentType, ctx) => plan(v, field, ctx),
  };
}
