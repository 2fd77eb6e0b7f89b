/**
 * Actions (Document 1 §2.11, §4.9; reference notes §5): GraphQL queries and mutations backed by
 * the user's HTTP handlers. Taps `onMetadataOperation` (operations.ts, on /v1/metadata and
 * /v1/query), `onSchemaCacheBuild` (actions that cannot be served are inconsistent objects
 * `action <name>`; roles named only by action permissions get their own schema), `onSchemaBuild`
 * at LATE (the role's action root fields, schema.ts) and `onEvent` (`shutdown.started` closes the
 * handler client and the action log). Asynchronous actions are delivered by
 * trigger/async-action-runner. Safe to disable: action fields and operations disappear.
 */
import {
  asValue,
  definePlugin,
  inconsistencyDroppers,
  OutgoingHttp,
  perSnapshot,
  registerMetadataOperations,
  Stage,
  type EnvLookup,
  type SchemaCache,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { ACTION_OPERATIONS } from './operations.js';
import { resolveActions, type ResolvedActions } from './resolve.js';
import { addActionsToDraft } from './schema.js';
import { actionLogStore, closeActionLogStore, registerActionLogStore } from './action-log.js';

const PLUGIN_ID = 'metadata/actions';
const RESOLVER_KEY = 'resolvedActions';

/** The actions of a snapshot, resolved once (shared with the async-action runner). */
export function actionsOfCache(container: { resolve<T>(name: string): T }, cache: SchemaCache): ResolvedActions {
  return container.resolve<(c: SchemaCache) => ResolvedActions>(RESOLVER_KEY)(cache);
}

export default definePlugin({
  name: 'actions',
  kind: 'metadata',
  // Asynchronous action requests live in the metadata database, which db/postgres owns (action-log-pg.ts).
  dependsOn: ['metadata/custom-types', 'db/postgres'],
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const env = (): EnvLookup => (container.hasRegistration('env') ? container.resolve<EnvLookup>('env') : process.env);
    const resolved = perSnapshot((cache: SchemaCache) => resolveActions(cache, env()));
    container.register(RESOLVER_KEY, asValue(resolved));
    registerActionLogStore(container);
    let http: OutgoingHttp | undefined;

    registerMetadataOperations(hooks, PLUGIN_ID, { unprefixed: ACTION_OPERATIONS, endpoints: { unprefixed: ['metadata', 'query'] } });
    inconsistencyDroppers(container).set('action', (draft, o) => {
      const name = o.name.replace(/^action /, '');
      draft.actions = (draft.actions ?? []).filter((a) => a['name'] !== name);
      if (draft.actions.length === 0) delete draft.actions;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      const r = resolved(build.cache);
      for (const problem of r.problems) build.addInconsistency(problem);
      for (const action of r.actions.values()) for (const role of action.roles) build.addRole(role);
    });
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.LATE }, (draft, ctx) =>
      addActionsToDraft(draft, ctx, {
        actions: (c) => resolved(c.cache),
        http: () => (http ??= new OutgoingHttp()),
        actionLog: () => actionLogStore(container),
        stringifyNumericTypes: config.stringifyNumericTypes,
      }),
    );
    hooks.onEvent.tapPromise({ name: PLUGIN_ID, stage: Stage.LAST }, async (event) => {
      if (event.type !== 'shutdown.started') return;
      await http?.close();
      http = undefined;
      await closeActionLogStore(container);
    });
  },
});
