/**
 * Creating object and array relationships. Arguments are parsed first (bad `using` forms are
 * parse errors at the offending key); then the name must be free on the table; then the metadata
 * is rebuilt and the new relationship must resolve, which checks the foreign key, the target
 * table and the mapped columns with the reference's messages. A kind with join rules (Citus)
 * refuses a relationship its database cannot run first, with `not-supported`, as the reference
 * does before it rebuilds.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  catalogIfAvailable,
  EngineError,
  isGraphQLName,
  type OperationContext,
  type OperationResult,
  optionalString,
  parseFailed,
  parseRelationshipUsing,
  quotedTable,
  type RelationshipEnv,
  type RelationshipKind,
  type RelationshipMetadata,
  relationshipObjectName,
  relationshipRefusal,
  requireKey,
  requireString,
  SUCCESS,
  tableKey,
  trackedTable,
} from '../../../core/sdk/index.js';
import { fieldNames, listKey } from './fields.js';

/** A relationship name: non-empty, and a GraphQL name since it becomes a field. */
export function relationshipName(args: ArgsObject, key: string): string {
  const name = requireString(args, key, ARGS_PATH);
  if (name === '') throw parseFailed('empty string not allowed', `${ARGS_PATH}.${key}`);
  if (!isGraphQLName(name)) {
    throw new EngineError('validation-failed', `cannot include "${name}" in the GraphQL schema because it is not a valid GraphQL identifier`, {
      path: `${ARGS_PATH}.${key}`,
    });
  }
  return name;
}

export async function createRelationship(
  ctx: OperationContext,
  args: ArgsObject,
  prefix: string,
  kind: RelationshipKind,
): Promise<OperationResult> {
  requireKey(args, 'table', ARGS_PATH);
  const name = relationshipName(args, 'name');
  const using = requireKey(args, 'using', ARGS_PATH);
  const parsed = parseRelationshipUsing(kind, using);
  if (!parsed.ok) throw parseFailed(parsed.error.message, [ARGS_PATH, ...parsed.error.path].join('.'));
  const comment = optionalString(args, 'comment', ARGS_PATH);

  const t = trackedTable(ctx, args, prefix);
  const catalog = await catalogIfAvailable(ctx, t.source.name);
  if (fieldNames(t.meta, catalog).has(name)) {
    throw new EngineError('already-exists', `field with name "${name}" already exists in table ${quotedTable(t.table)}`, { path: ARGS_PATH });
  }
  const rel: RelationshipMetadata = { name, using: using as RelationshipMetadata['using'] };
  if (comment !== undefined) rel.comment = comment;
  await refuseUnsupportedJoin(ctx, prefix, t.source.name, t.table, kind, rel);
  const key = listKey(kind);
  t.meta[key] = [...(t.meta[key] ?? []), rel];
  ctx.markChanged();
  await assertConsistent(ctx, [relationshipObjectName(t.source.name, t.table, kind, name)]);
  return SUCCESS;
}

/** The kind's join rules, checked against the tables as they resolve before this change. */
async function refuseUnsupportedJoin(
  ctx: OperationContext,
  prefix: string,
  source: string,
  table: RelationshipEnv['table'],
  kind: RelationshipKind,
  rel: RelationshipMetadata,
): Promise<void> {
  const dbKind = ctx.dbKind(prefix);
  if (!dbKind.checkRelationship) return;
  const resolved = (await ctx.rebuildPreview()).sources.get(source);
  const owner = resolved?.tables.get(tableKey(table));
  if (!resolved || !owner) return;
  const tracked = new Map([...resolved.tables].map(([key, t]) => [key, t.catalog] as const));
  const refused = relationshipRefusal({ source, table, catalog: owner.catalog, tracked }, kind, rel, (check) => dbKind.checkRelationship!(check));
  if (refused !== null) throw new EngineError('not-supported', refused, { path: ARGS_PATH });
}
