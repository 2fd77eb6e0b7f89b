/**
 * The query-collection operations of Document 1 §4.10 (collections and their queries). Each
 * changes the draft; the service's rebuild then validates every query against the schema, so a
 * query that does not validate is refused as a new inconsistency.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  EngineError,
  type OperationContext,
  type OperationResult,
  optionalString,
  requireBoolean,
  requireKey,
  SUCCESS,
} from '../../../core/sdk/index.js';
import {
  allowlistOf,
  collectionsOf,
  findCollection,
  parseCollectionDefinition,
  parseQueryText,
  requireCollection,
  requireName,
  restEndpointsOf,
} from './collections.js';

type Handler = (ctx: OperationContext, args: ArgsObject) => OperationResult;

const alreadyExists = (name: string, path: string): EngineError =>
  new EngineError('already-exists', `query collection with name "${name}" already exists`, { path });

const create: Handler = (ctx, args) => {
  const name = requireName(args, 'name', ARGS_PATH);
  if (findCollection(ctx.draft, name)) throw alreadyExists(name, `${ARGS_PATH}.name`);
  const definition = parseCollectionDefinition(requireKey(args, 'definition', ARGS_PATH), `${ARGS_PATH}.definition`);
  const comment = optionalString(args, 'comment', ARGS_PATH);
  collectionsOf(ctx.draft).push({ name, definition, ...(comment !== undefined ? { comment } : {}) });
  ctx.markChanged();
  return SUCCESS;
};

/** The allow-list and REST endpoints follow the new name, so nothing that used it breaks. */
const rename: Handler = (ctx, args) => {
  const name = requireName(args, 'name', ARGS_PATH);
  const newName = requireName(args, 'new_name', ARGS_PATH);
  const collection = requireCollection(ctx.draft, name, `${ARGS_PATH}.name`);
  if (findCollection(ctx.draft, newName)) throw alreadyExists(newName, `${ARGS_PATH}.new_name`);
  collection.name = newName;
  for (const entry of allowlistOf(ctx.draft)) if (entry.collection === name) entry.collection = newName;
  for (const e of restEndpointsOf(ctx.draft)) if (e.definition.query.collection_name === name) e.definition.query.collection_name = newName;
  ctx.markChanged();
  return SUCCESS;
};

const drop: Handler = (ctx, args) => {
  const name = requireName(args, 'collection', ARGS_PATH);
  const cascade = requireBoolean(args, 'cascade', ARGS_PATH);
  requireCollection(ctx.draft, name, `${ARGS_PATH}.collection`);
  const inAllowlist = allowlistOf(ctx.draft).some((e) => e.collection === name);
  const endpoints = restEndpointsOf(ctx.draft).filter((e) => e.definition.query.collection_name === name);
  if (!cascade && inAllowlist) {
    throw new EngineError(
      'dependency-error',
      `query collection with name "${name}" is present in the allowlist; cannot proceed to drop. ` +
        'please use cascade to confirm you wish to drop it from the allowlist as well',
      { path: `${ARGS_PATH}.collection` },
    );
  }
  if (!cascade && endpoints.length > 0) {
    throw new EngineError(
      'dependency-error',
      `query collection with name "${name}" is used by the REST endpoint(s) ${endpoints.map((e) => `"${e.name}"`).join(', ')}; ` +
        'cannot proceed to drop. please use cascade to confirm you wish to drop the endpoints as well',
      { path: `${ARGS_PATH}.collection` },
    );
  }
  ctx.draft.query_collections = collectionsOf(ctx.draft).filter((c) => c.name !== name) as unknown as Record<string, unknown>[];
  ctx.draft.allowlist = allowlistOf(ctx.draft).filter((e) => e.collection !== name) as unknown as Record<string, unknown>[];
  ctx.draft.rest_endpoints = restEndpointsOf(ctx.draft).filter((e) => e.definition.query.collection_name !== name) as unknown as Record<
    string,
    unknown
  >[];
  ctx.markChanged();
  return SUCCESS;
};

const addQuery: Handler = (ctx, args) => {
  const collectionName = requireName(args, 'collection_name', ARGS_PATH);
  const queryName = requireName(args, 'query_name', ARGS_PATH);
  const query = parseQueryText(requireKey(args, 'query', ARGS_PATH), `${ARGS_PATH}.query`);
  const collection = requireCollection(ctx.draft, collectionName, `${ARGS_PATH}.collection_name`);
  if (collection.definition.queries.some((q) => q.name === queryName)) {
    throw new EngineError('already-exists', `query with name "${queryName}" already exists in collection "${collectionName}"`, {
      path: `${ARGS_PATH}.query_name`,
    });
  }
  collection.definition.queries.push({ name: queryName, query });
  ctx.markChanged();
  return SUCCESS;
};

const dropQuery: Handler = (ctx, args) => {
  const collectionName = requireName(args, 'collection_name', ARGS_PATH);
  const queryName = requireName(args, 'query_name', ARGS_PATH);
  const collection = requireCollection(ctx.draft, collectionName, `${ARGS_PATH}.collection_name`);
  const index = collection.definition.queries.findIndex((q) => q.name === queryName);
  if (index === -1) {
    throw new EngineError('not-found', `query with name "${queryName}" not found in collection "${collectionName}"`, {
      status: 400,
      path: `${ARGS_PATH}.query_name`,
    });
  }
  collection.definition.queries.splice(index, 1);
  ctx.markChanged();
  return SUCCESS;
};

export const COLLECTION_OPERATIONS: Readonly<Record<string, Handler>> = {
  create_query_collection: create,
  rename_query_collection: rename,
  drop_query_collection: drop,
  add_query_to_collection: addQuery,
  drop_query_from_collection: dropQuery,
};
