/**
 * The `mssql` database kind (`sqlb_` operations), written against the SDK alone: mssql (tedious)
 * pools per source, opened and the driver loaded on first use, so loading this plugin costs
 * nothing until a source is added; introspection from sys.* in one round trip; the query IR
 * compiled to one T-SQL statement per root field (FOR JSON PATH, OUTER APPLY, OFFSET/FETCH); and
 * insert/update/delete mutations with OUTPUT; event triggers (event-triggers/: an event log in
 * the source and AFTER triggers capturing changes). It declares `mutations`,
 * `remoteRelationships` and `eventTriggers`: no distinct_on, subscriptions, functions, computed
 * fields, enum tables or run_sql, so the engine offers none of those for its sources. Taps `onSchemaBuild` at DEFAULT;
 * safe to disable (its sources become inconsistent).
 */
import { addSourceToDraft, asValue, definePlugin, Stage } from '../../../core/sdk/index.js';
import { createMssqlKind, openMssqlPool, type OpenDriver } from './kind.js';

const PLUGIN_ID = 'db/mssql';

/** The plugin over `openDriver` (the real mssql pool; the SQL tests give a recorder). */
export const createMssqlPlugin = (openDriver: OpenDriver = openMssqlPool) => definePlugin({
  name: 'mssql',
  kind: 'db',
  register(container, hooks) {
    const env = container.hasRegistration('env') ? container.resolve<NodeJS.ProcessEnv>('env') : process.env;
    container.register({ 'db.mssql': asValue(createMssqlKind(env, openDriver)) });
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (draft, ctx) => {
      for (const source of ctx.cache.sources.values()) {
        if (source.kind === 'mssql') addSourceToDraft(draft, source, ctx);
      }
      return draft;
    });
  },
});

export default createMssqlPlugin();
