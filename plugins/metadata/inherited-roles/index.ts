/**
 * Inherited roles (`--experimental-features inherited_roles`): a role made of other roles, whose
 * permissions derive from theirs as the reference engine derives them (combine.ts). Registers
 * add_inherited_role / drop_inherited_role, derives the permissions on every schema-cache build
 * (resolve.ts), and reports what cannot be derived as inconsistent objects. Provides the
 * `inherited-roles` feature: without this plugin, an `inherited_roles` section is reported
 * inconsistent rather than ignored.
 */
import {
  argsObject,
  definePlugin,
  inconsistencyDroppers,
  registerMetadataOperations,
  type MetadataOperation,
  type OperationContext,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { INHERITED_ROLE_OPERATIONS } from './operations.js';
import { deriveInheritedRoles, type ActionRoles } from './resolve.js';
import { FEATURE_FLAG } from './roles.js';

const PLUGIN_ID = 'metadata/inherited-roles';
/** Where metadata/actions keeps its per-snapshot resolution (roles allowed per action). */
const ACTIONS_KEY = 'resolvedActions';

export default definePlugin({
  name: 'inherited-roles',
  kind: 'metadata',
  provides: ['inherited-roles'],
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const enabled = config.experimentalFeatures.includes(FEATURE_FLAG);
    registerMetadataOperations(hooks, PLUGIN_ID, {
      unprefixed: Object.fromEntries(
        Object.entries(INHERITED_ROLE_OPERATIONS).map(([type, handler]) => [
          type,
          (op: MetadataOperation, ctx: OperationContext) => handler(ctx, argsObject(op.args)),
        ]),
      ),
      endpoints: { unprefixed: ['metadata', 'query'] },
    });
    inconsistencyDroppers(container).set('inherited_role', (draft, o) => {
      const name = (o.definition as { role_name?: unknown } | undefined)?.role_name;
      draft.inherited_roles = (draft.inherited_roles ?? []).filter((r) => r['role_name'] !== name);
      if (draft.inherited_roles.length === 0) delete draft.inherited_roles;
    });
    // Informational, as in the reference: nothing in the metadata to remove.
    inconsistencyDroppers(container).set('inherited role permission inconsistency', () => undefined);
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      const actions = container.hasRegistration(ACTIONS_KEY) ? container.resolve<ActionRoles>(ACTIONS_KEY) : undefined;
      deriveInheritedRoles(build, enabled, actions);
    });
  },
});
