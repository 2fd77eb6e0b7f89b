/**
 * Creating object and array relationships. Arguments are parsed first (bad `using` forms are
 * parse errors at the offending key); then the name must be free on the table; then the metadata
 * is rebuilt and the new relationship must resolve, which checks the foreign key, the target
 * table and the mapped columns with the reference's messages.
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
  type RelationshipKind,
  type RelationshipMetadata,
  relationshipObjectName,
  requireKey,
  requireString,
  SUCCESS,
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
  const key = listKey(kind);
  t.meta[key] = [...(t.meta[key] ?? []), rel];
  ctx.markChanged();
  await assertConsistent(ctx, [relationshipObjectName(t.source.name, t.table, kind, name)]);
  return SUCCESS;
}
