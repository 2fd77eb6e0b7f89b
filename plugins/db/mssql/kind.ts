/**
 * The `mssql` database kind. `openDriver` turns a source's resolved configuration into what runs
 * its statements: the real mssql pool (pool.ts) in the plugin; the SQL tests hand in a recorder
 * that answers introspection from rows and keeps the statements it is given.
 */
import { type DatabaseKind, EngineError, engineWorkerCount } from '../../../core/sdk/index.js';
import { parseMssqlConfiguration, resolveMssqlConfiguration, type ResolvedMssqlConnection } from './config.js';
import { MssqlPool, type MssqlDriver } from './pool.js';
import { MSSQL_SCALAR_TYPES } from './scalar-types.js';
import { MssqlSourceConnection } from './source-connection.js';

export type OpenDriver = (resolve: () => ResolvedMssqlConnection) => MssqlDriver;

export const openMssqlPool: OpenDriver = (resolve) => new MssqlPool(resolve);

export function createMssqlKind(env: NodeJS.ProcessEnv, openDriver: OpenDriver = openMssqlPool): DatabaseKind {
  return {
    kind: 'mssql',
    prefix: 'sqlb',
    capabilities: { mutations: true, remoteRelationships: true, eventTriggers: true },
    scalarTypes: MSSQL_SCALAR_TYPES,
    eventTriggers: {
      // The reference fires sqlb_ captures for replicated changes unless told otherwise.
      defaultTriggerOnReplication: true,
      eventLog: (connection) => {
        if (!(connection instanceof MssqlSourceConnection)) throw new EngineError('unexpected', 'event log asked of a connection of another kind');
        return connection.eventLog();
      },
    },
    validateConfiguration: (configuration, path) => {
      parseMssqlConfiguration(configuration, path);
    },
    // The environment variable is read when the pool opens, so a missing one fails requests, not the start.
    connect: (_sourceName, configuration) => new MssqlSourceConnection(openDriver(() => resolveMssqlConfiguration(configuration, env, engineWorkerCount(env)))),
  };
}
