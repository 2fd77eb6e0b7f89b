/**
 * The allow-list operations of Document 1 §4.10: add_collection_to_allowlist (scope global by
 * default; a collection already listed is left as it is, in any scope),
 * update_scope_of_collection_in_allowlist, drop_collection_from_allowlist.
 */
import {
  ARGS_PATH,
  EngineError,
  requireKey,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { allowlistOf, parseScope, requireCollection, requireName, type PlainHandler } from '../query-collections/collections.js';

const notInAllowlist = (name: string): EngineError =>
  new EngineError('not-found', `collection "${name}" doesn't exist in the allowlist`, { status: 400, path: ARGS_PATH });

const add: PlainHandler = (ctx, args) => {
  const collection = requireName(args, 'collection', ARGS_PATH);
  const scope = parseScope(args['scope'], `${ARGS_PATH}.scope`);
  requireCollection(ctx.draft, collection, `${ARGS_PATH}.collection`);
  const entries = allowlistOf(ctx.draft);
  if (entries.some((e) => e.collection === collection)) {
    return {
      body: {
        message:
          `collection "${collection}" already exists in the allowlist, scope ignored; ` +
          'to change scope, use update_scope_of_collection_in_allowlist',
      },
    };
  }
  entries.push({ collection, scope });
  ctx.markChanged();
  return SUCCESS;
};

const updateScope: PlainHandler = (ctx, args) => {
  const collection = requireName(args, 'collection', ARGS_PATH);
  const scope = parseScope(requireKey(args, 'scope', ARGS_PATH), `${ARGS_PATH}.scope`);
  requireCollection(ctx.draft, collection, `${ARGS_PATH}.collection`);
  const entry = allowlistOf(ctx.draft).find((e) => e.collection === collection);
  if (!entry) throw notInAllowlist(collection);
  entry.scope = scope;
  ctx.markChanged();
  return SUCCESS;
};

const drop: PlainHandler = (ctx, args) => {
  const collection = requireName(args, 'collection', ARGS_PATH);
  requireCollection(ctx.draft, collection, `${ARGS_PATH}.collection`);
  const entries = allowlistOf(ctx.draft);
  const index = entries.findIndex((e) => e.collection === collection);
  if (index === -1) throw notInAllowlist(collection);
  entries.splice(index, 1);
  ctx.markChanged();
  return SUCCESS;
};

export const ALLOWLIST_OPERATIONS: Readonly<Record<string, PlainHandler>> = {
  add_collection_to_allowlist: add,
  update_scope_of_collection_in_allowlist: updateScope,
  drop_collection_from_allowlist: drop,
};
