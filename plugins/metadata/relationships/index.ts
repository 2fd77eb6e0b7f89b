/**
 * Relationship operations: `<prefix>_create_object_relationship`,
 * `_create_array_relationship`, `_drop_relationship`, `_set_relationship_comment`,
 * `_rename_relationship` for every loaded kind's prefix on `/v1/metadata`, and the same operations without
 * a prefix on the legacy `/v1/query` (acting on `pg_` sources).
 */
import {
  type ArgsObject,
  definePlugin,
  type OperationContext,
  type OperationResult,
  registerMetadataOperations,
} from '../../../core/sdk/index.js';
import { createRelationship } from './create.js';
import { dropRelationship, renameRelationship, setRelationshipComment } from './manage.js';

const PLUGIN_ID = 'metadata/relationships';

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
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: OPERATIONS });
  },
});
