/**
 * Serves `POST /v1alpha1/pg_dump` (admin only): `{opts, clean_output, source}` runs the server's
 * `pg_dump` against a Postgres source and answers the SQL as text, for migration tooling. Part of
 * the `pgdump` API of --enabled-apis. Needs `pg_dump` on the PATH.
 */
import {
  authenticateRequest,
  definePlugin,
  EngineError,
  isAdmin,
  readJsonBody,
  type SchemaCacheRef,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { resolvePgSourceConfiguration } from '../../db/postgres/connection-info.js';
import { checkDumpOptions, cleanDumpOutput, runPgDump } from './dump.js';

export default definePlugin({
  name: 'pgdump',
  kind: 'api',
  // pg_dump runs against a postgres source, read with db/postgres's connection parsing.
  dependsOn: ['db/postgres'],
  api: 'pgdump',
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const env = container.resolve<NodeJS.ProcessEnv>('env');
    hooks.onHttpRoutes.tap('api/pgdump', ({ router }) => {
      router.post('/v1alpha1/pg_dump', async (ctx) => {
        const body = await readJsonBody(ctx, config.maxRequestBodySize);
        const session = await authenticateRequest(ctx, hooks, body);
        if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new EngineError('parse-failed', 'expected Object', { path: '$' });
        }
        const args = body as Record<string, unknown>;
        const opts = checkDumpOptions(args['opts']);
        const sourceName = args['source'] ?? 'default';
        if (typeof sourceName !== 'string') throw new EngineError('parse-failed', 'expected String for "source"', { path: '$.source' });
        const source = container.resolve<SchemaCacheRef>('schemaCacheRef').current.metadata.sources.find((s) => s.name === sourceName);
        if (!source) throw new EngineError('not-exists', `source with name "${sourceName}" does not exist`, { path: '$.source' });
        if (source.kind !== 'postgres') {
          throw new EngineError('not-supported', `pg_dump only serves postgres sources; "${sourceName}" is ${source.kind}`, { path: '$.source' });
        }
        const resolved = resolvePgSourceConfiguration(source.configuration, env);
        const sql = await runPgDump(resolved.target, opts, resolved.secrets);
        ctx.type = 'application/sql';
        ctx.body = args['clean_output'] === true ? cleanDumpOutput(sql) : sql;
      });
    });
  },
});
