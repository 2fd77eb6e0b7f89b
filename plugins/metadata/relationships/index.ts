/**
 * Relationship operations: `<prefix>_create_object_relationship`,
 * `_create_array_relationship`, `_drop_relationship`, `_set_relationship_comment`,
 * `_rename_relationship` for every kind prefix on `/v1/metadata`, and the same operations without
 * a prefix on the legacy `/v1/query` (acting on `pg_` sources).
 */
import { tapOperations } from '../../../core/metadata/register.js';
import { definePlugin } from '../../../core/plugin.js';
import type { ArgsObject } from '../../../core/metadata/args.js';
import type { OperationContext, OperationResult } from '../../../core/metadata/operation.js';
import { createRelationship } from './create.js';
import { dropRelationship, renameRelationship, setRelationshipComment } from './manage.js';

const PLUGIN_ID = 'metadata/relationships';

export const RELATIONSHIP_PREFIXES = ['pg', 'sqlb', 'dist', 'wh'] as const;

type Handler = (ctx: OperationContext, args: ArgsObject, prefix: string) => Promise<OperationResult>;

const OPERATIONS: Record<string, Handler> = {
  create_object_relationship: (ctx, args, prefix) => createRelationship(ctx, args, prefix, 'object'),
  create_array_relationship: (ctx, args, prefix) => createRelationship(ctx, args, prefix, 'array'),
  drop_relationship: dropRelationship,
  set_relationship_comment: setRelationshipComment,
  rename_relationship: renameRelationship,
};

export default definePlugin({
  name: 'relationships',
  kind: 'metadata',
  register(_container, hooks) {
    tapOperations(hooks, PLUGIN_ID, { prefixed: OPERATIONS, prefixes: RELATIONSHIP_PREFIXES });
  },
});
