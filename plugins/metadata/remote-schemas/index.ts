/**
 * Remote schemas (Document 1 §2.9, §4.8): other GraphQL servers stitched into the API. Taps
 * `onMetadataOperation` (add/update/remove/reload/introspect_remote_schema, add/drop
 * _remote_schema_permissions), `onSchemaCacheBuild` (introspects each remote through the shared
 * outgoing client and reports what is unreachable, invalid or clashing as inconsistent) and
 * `onSchemaBuild` after the databases (adds each visible remote's root fields, planned as
 * remote root fields the executor sends once per remote and operation). Provides
 * `remote-schema-permissions` (--enable-remote-schema-permissions). Safe to disable when no
 * remote schema is configured; with one configured, its root fields disappear.
 */
import {
  asFunction,
  asValue,
  definePlugin,
  inconsistencyDroppers,
  OutgoingHttp,
  rootFieldReservations,
  Stage,
  type AwilixContainer,
} from '../../../core/sdk/index.js';
import { tapPlainOperations } from '../query-collections/collections.js';
import { OPERATIONS, remotesOf } from './operations.js';
import { addRemotesToDraft, type RemoteTypeFieldProvider } from './schema.js';
import { buildRemoteState, IntrospectionCache, remoteRootFieldNames, remoteStateOf } from './state.js';

export const PLUGIN_ID = 'metadata/remote-schemas';

const PROVIDERS_KEY = 'remoteTypeFieldProviders';

/** Where plugins add remote relationships on remote types (the remote-relationships plugin). */
export function remoteTypeFieldProviders(container: AwilixContainer): RemoteTypeFieldProvider[] {
  if (!container.hasRegistration(PROVIDERS_KEY)) container.register(PROVIDERS_KEY, asValue([] as RemoteTypeFieldProvider[]));
  return container.resolve<RemoteTypeFieldProvider[]>(PROVIDERS_KEY);
}

export default definePlugin({
  name: 'remote-schemas',
  kind: 'metadata',
  provides: ['remote-schema-permissions'],
  register(container, hooks) {
    container.register({
      remoteSchemaHttp: asFunction(() => new OutgoingHttp())
        .singleton()
        .disposer((h: OutgoingHttp) => h.close()),
    });
    const introspections = new IntrospectionCache();
    const providers = remoteTypeFieldProviders(container);
    tapPlainOperations(hooks, PLUGIN_ID, OPERATIONS, ['metadata', 'query']);

    hooks.onSchemaCacheBuild.tapPromise(PLUGIN_ID, (build) =>
      buildRemoteState(build, {
        http: container.resolve<OutgoingHttp>('remoteSchemaHttp'),
        env: container.resolve<NodeJS.ProcessEnv>('env'),
        config: container.resolve('config'),
        introspections,
      }),
    );
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT + 5 }, (draft, ctx) =>
      addRemotesToDraft(draft, ctx, ctx.config.enableRemoteSchemaPermissions, providers),
    );

    // Tracking a table whose root field a remote already has is refused up front (track.ts).
    rootFieldReservations(container).set(PLUGIN_ID, (cache) => remoteRootFieldNames(remoteStateOf(cache)));

    const droppers = inconsistencyDroppers(container);
    droppers.set('remote_schema', (draft, o) => {
      const name = (o.definition as { name?: string }).name;
      draft.remote_schemas = remotesOf(draft).filter((r) => r.name !== name) as never;
    });
    droppers.set('remote_schema_permission', (draft, o) => {
      const def = o.definition as { remote_schema?: string; role?: string };
      const remote = remotesOf(draft).find((r) => r.name === def.remote_schema);
      if (remote) remote.permissions = (remote.permissions ?? []).filter((p) => p.role !== def.role);
    });
  },
});
