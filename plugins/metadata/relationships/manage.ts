/**
 * Dropping, commenting and renaming relationships. A drop reports (or, with `cascade`, removes)
 * the permissions whose filters traverse the relationship; a rename rewrites those filters so
 * they keep working.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  catalogIfAvailable,
  type DatabaseCatalog,
  dependencyError,
  EngineError,
  jsonTypeName,
  type OperationContext,
  type OperationResult,
  optionalBoolean,
  quotedTable,
  relationshipDependents,
  relationshipObjectName,
  removeDependents,
  renameRelationshipInPermissions,
  requireString,
  SUCCESS,
  type TableMetadata,
  trackedTable,
} from '../../../core/sdk/index.js';
import { relationshipName } from './create.js';
import { columnNames, fieldNames, findRelationship, listKey } from './fields.js';

/** The named relationship, with the reference's errors for a missing one or a column. */
function requireRelationship(meta: TableMetadata, name: string, catalog: DatabaseCatalog | undefined) {
  const found = findRelationship(meta, name);
  if (found) return found;
  if (columnNames(meta, catalog).has(name)) {
    throw new EngineError('unexpected-payload', `expecting a relationship; but, "${name}" is a postgres column; `, { path: ARGS_PATH });
  }
  throw new EngineError('not-exists', `relationship "${name}" does not exist`, { path: ARGS_PATH });
}

export async function dropRelationship(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const name = requireString(args, 'relationship', ARGS_PATH);
  const cascade = optionalBoolean(args, 'cascade', ARGS_PATH, false);
  const t = trackedTable(ctx, args, prefix);
  const catalog = await catalogIfAvailable(ctx, t.source.name);
  const { kind } = requireRelationship(t.meta, name, catalog);
  const dependents = relationshipDependents(t.source, t.table, name, catalog);
  if (dependents.length > 0 && !cascade) throw dependencyError(dependents, ARGS_PATH);
  removeDependents(ctx.draft, dependents);
  const key = listKey(kind);
  t.meta[key] = (t.meta[key] ?? []).filter((r) => r.name !== name);
  if (t.meta[key]!.length === 0) delete t.meta[key];
  ctx.markChanged();
  return SUCCESS;
}

export async function setRelationshipComment(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  // One example in the spec names the relationship `name`; the reference's key is `relationship`.
  const name = 'relationship' in args || !('name' in args) ? requireString(args, 'relationship', ARGS_PATH) : requireString(args, 'name', ARGS_PATH);
  const comment = args.comment;
  if (comment !== undefined && comment !== null && typeof comment !== 'string') {
    throw new EngineError('parse-failed', `expected String, but encountered ${jsonTypeName(comment)}`, { path: `${ARGS_PATH}.comment` });
  }
  const t = trackedTable(ctx, args, prefix);
  const { rel } = requireRelationship(t.meta, name, await catalogIfAvailable(ctx, t.source.name));
  if (typeof comment === 'string') rel.comment = comment;
  else delete rel.comment;
  ctx.markChanged();
  return SUCCESS;
}

export async function renameRelationship(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  const name = requireString(args, 'name', ARGS_PATH);
  const newName = relationshipName(args, 'new_name');
  const t = trackedTable(ctx, args, prefix);
  const catalog = await catalogIfAvailable(ctx, t.source.name);
  const { kind, rel } = requireRelationship(t.meta, name, catalog);
  if (fieldNames(t.meta, catalog).has(newName)) {
    throw new EngineError(
      'already-exists',
      `cannot rename relationship "${name}" to "${newName}" in table ${quotedTable(t.table)} as a column/relationship with the name already exists`,
      { path: ARGS_PATH },
    );
  }
  // Filters are walked by the relationship's current name, so rewrite them before renaming it.
  renameRelationshipInPermissions(t.source, t.table, name, newName, catalog);
  rel.name = newName;
  ctx.markChanged();
  await assertConsistent(ctx, [relationshipObjectName(t.source.name, t.table, kind, newName)]);
  return SUCCESS;
}
