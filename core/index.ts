/**
 * The package's main entry (`svc-graphql-engine`): start an engine from code, or run the CLI.
 * Plugins import `svc-graphql-engine/sdk` instead.
 */
export { startEngine } from './engine.js';
export type { Engine, EngineOptions } from './engine.js';
export { parseServerConfig } from './config/parse.js';
export type { ServerConfig } from './config/types.js';
export { runCli, buildProgram } from './cli.js';
export { ENGINE_VERSION } from './version.js';
